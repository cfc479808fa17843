/* Red team: see sigio.h, mode 7. */
#define MODE 7
#include "sigio.h"
