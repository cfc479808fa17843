/* Red team: see sigio.h, mode 1. */
#define MODE 1
#include "sigio.h"
