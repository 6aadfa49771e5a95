/* Helpers shared by every backend of the lifecycle interface (backend.h). */
#include "lifecycle/backend.h"

#include <stdlib.h>
#include <string.h>

void lc_deployed_free(LcDeployed *d)
{
    free(d->manifest);
    free(d->description);
    memset(d, 0, sizeof *d);
}
