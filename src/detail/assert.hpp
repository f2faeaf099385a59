// Internal: invariants of reshape1's own code (never input validation: that is fail()).
#pragma once

#include <cstdio>
#include <cstdlib>

#define RESHAPE1_ASSERT(cond)                                                                   \
  do {                                                                                          \
    if (!(cond)) {                                                                              \
      std::fprintf(stderr, "%s:%d: reshape1 internal invariant failed: %s\n", __FILE__, __LINE__, \
                   #cond);                                                                      \
      std::abort();                                                                             \
    }                                                                                           \
  } while (false)
