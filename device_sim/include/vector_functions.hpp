// vector_functions.hpp: the toolkit keeps the make_* definitions in this file; minicuda keeps
// them in vector_functions.h, which this name includes, so either #include works.
#ifndef __VECTOR_FUNCTIONS_HPP__
#define __VECTOR_FUNCTIONS_HPP__

#include "vector_functions.h"

#endif /* __VECTOR_FUNCTIONS_HPP__ */
