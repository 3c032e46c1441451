/* flopfit/export.h — symbol visibility for libflopfit. */
#ifndef FLOPFIT_EXPORT_H
#define FLOPFIT_EXPORT_H

#if defined(FF_BUILDING_LIBFLOPFIT) && defined(__GNUC__)
#define FF_API __attribute__((visibility("default")))
#else
#define FF_API
#endif

#endif
