/* Red team: see sigio.h, mode 10. */
#define MODE 10
#include "sigio.h"
