/* The native runtime as a lifecycle backend (lifecycle/backend.h): what runs is the
 * version whose manifest the target's durable state keeps with its last checkpoint;
 * replaying reads the sources again from where the deployment began (Kafka offsets
 * recorded as its origin, files from their start). */
#ifndef WEIR_BACKENDS_NATIVE_H
#define WEIR_BACKENDS_NATIVE_H

#include "lifecycle/backend.h"

/* The backend of the project's target (runtime: native). The project and graph must
 * outlive it; close with b->ops->close(b). */
LcBackend *native_backend_open(Project *p, const IrGraph *g);

#endif
