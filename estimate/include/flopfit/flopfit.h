/* flopfit/flopfit.h — everything libflopfit installs. */
#ifndef FLOPFIT_FLOPFIT_H
#define FLOPFIT_FLOPFIT_H

#include "flopfit/spec.h"
#include "flopfit/estimate.h"
#include "flopfit/export.h"
#include "flopfit/gguf.h"
#include "flopfit/model.h"
#include "flopfit/ops.h"
#include "flopfit/precision.h"
#include "flopfit/profile.h"
#include "flopfit/status.h"
#include "flopfit/version.h"

#endif
