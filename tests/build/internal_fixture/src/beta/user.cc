// A fixture for build.internal_headers_catch: beta may include alpha's public header, not its
// detail; the check must name this file and that header.
#include "alpha/api.h"
#include "alpha/detail.h"
