// SPDX-License-Identifier: Apache-2.0
//
// Include QCustomPlot through this header. qcustomplot.h uses the `signals` and `foreach`
// keywords, which the project turns off with QT_NO_KEYWORDS; they are mapped to their Q_ forms
// for the duration of the include only.
#pragma once

#ifndef signals
#define signals Q_SIGNALS
#define TRAINSCOPE_UNDEF_SIGNALS
#endif
#ifndef foreach
#define foreach Q_FOREACH
#define TRAINSCOPE_UNDEF_FOREACH
#endif

#include <qcustomplot.h>

#ifdef TRAINSCOPE_UNDEF_SIGNALS
#undef signals
#undef TRAINSCOPE_UNDEF_SIGNALS
#endif
#ifdef TRAINSCOPE_UNDEF_FOREACH
#undef foreach
#undef TRAINSCOPE_UNDEF_FOREACH
#endif
