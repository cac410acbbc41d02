# A Debian 12 machine with minicuda, for students who are not on Linux:
#   docker build -t minicuda .          builds it and runs the README's first quick-start command
#   docker run --rm minicuda            runs the README's second one: the whole test suite
# The two commands are the README's, word for word (the docs.dockerfile_runs_the_readme_commands
# test keeps them so).
FROM debian:12
RUN apt-get update && apt-get install -y --no-install-recommends ca-certificates git && rm -rf /var/lib/apt/lists/*
WORKDIR /minicuda
COPY . .
RUN ./scripts/install-deps.sh && cmake --preset debug && cmake --build --preset debug -j2 --target malloc_vs_cudamalloc && MINICUDA_TRACE=1 ./build/bin/malloc_vs_cudamalloc
CMD ["bash", "-c", "./scripts/install-deps.sh && ./scripts/test.sh"]
