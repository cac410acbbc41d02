// helper.h: the corpus's Common/ (check_nvcc.sh compat_script); compat.sh adds -I Common.
#pragma once
#define EXIT_WAIVED 2
