// SPDX-License-Identifier: Apache-2.0
//
// The one settings file of the desktop app (TrainScope/TrainScope.conf in the user's
// configuration directory): window layout, recent files, breakpoints, training setups, speed,
// recording limits and the last device endpoint all live in it. Everything reads and writes it
// through AppSettings(), never through a default-constructed QSettings, whose file would follow
// the application name.
//
//   QSettings settings = AppSettings();
//   settings.setValue(QStringLiteral("training/stepsPerSecond"), 10.0);
#pragma once

#include <QSettings>

namespace trainscope {

QSettings AppSettings();

}  // namespace trainscope
