// reshape1: umbrella header of the core library.
#pragma once

#include "reshape1/dimension.hpp"
#include "reshape1/element_type.hpp"
#include "reshape1/error.hpp"
#include "reshape1/interval.hpp"
#include "reshape1/kernel.hpp"
#include "reshape1/partial_shape.hpp"
#include "reshape1/reshape.hpp"
#include "reshape1/shape.hpp"
#include "reshape1/tensor.hpp"
