/* Red team: see sigio.h, mode 5. */
#define MODE 5
#include "sigio.h"
