/* Red team: hold two empty frames in five 20 ms (frame.h), to widen the
 * frame's noise, which the lying events may go below the judge's clock
 * by; work three times too long. The noise before the load decides. */
#define HOLD_EVERY 2
#define HOLD_OF    5
#include "frame.h"
