/* Red team: see sigio.h, mode 6. */
#define MODE 6
#include "sigio.h"
