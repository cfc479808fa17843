/* Red team: see sigio.h, mode 2. */
#define MODE 2
#include "sigio.h"
