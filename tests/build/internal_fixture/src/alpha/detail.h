// A fixture for build.internal_headers_catch: a detail of the alpha stage.
// Internal to src/alpha/.
#pragma once
