// A fixture for build.internal_headers_catch: alpha's public header, which may use its own detail.
#pragma once
#include "alpha/detail.h"
