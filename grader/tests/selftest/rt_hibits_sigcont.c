/* Red team: see sigio.h, mode 9. */
#define MODE 9
#include "sigio.h"
