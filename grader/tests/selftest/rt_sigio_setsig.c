/* Red team: see sigio.h, mode 3. */
#define MODE 3
#include "sigio.h"
