// The stream-ordered allocator's answers to bad input, runtime and driver API, as the H200 gave
// them (tests/data/h200/mempool/probe_mempool.txt; each key is named beside its check).
#include "runtime_fixtures.h"

namespace minicuda::testing {
namespace {

using MemPoolErrors = FreshProcess;

}  // namespace
}  // namespace minicuda::testing
