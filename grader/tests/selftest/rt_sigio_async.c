/* Red team: see sigio.h, mode 4. */
#define MODE 4
#include "sigio.h"
