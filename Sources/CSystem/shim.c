// Intentionally empty: CSystem is header-only, but SwiftPM needs one source file.
#include "CSystem.h"
