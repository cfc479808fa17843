/* Red team: hold every empty frame's reply 20 ms (frame.h), lie with a slow
 * clock, work three times too long. The frame before the load decides. */
#define HOLD_EVERY 1
#define HOLD_OF    1
#include "frame.h"
