/* Red team: see sigio.h, mode 8. */
#define MODE 8
#include "sigio.h"
