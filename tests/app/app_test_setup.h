// SPDX-License-Identifier: Apache-2.0
//
// What every QtTest of the whole app starts with: settings in a scratch folder (the window saves
// its layout, recent files and setups under fixed names) and the generated demo.
#pragma once

#include <QSettings>
#include <QStandardPaths>
#include <QTemporaryDir>

#include "app/gui/app_controller.h"

namespace trainscope::testing {

// False when the scratch folder or the demo is missing.
inline bool PrepareAppTest(const QTemporaryDir& settings_dir, SessionFiles* demo) {
  QStandardPaths::setTestModeEnabled(true);
  if (!settings_dir.isValid()) return false;
  QSettings::setPath(QSettings::NativeFormat, QSettings::UserScope, settings_dir.path());
  *demo = DemoSessionFiles();
  return !demo->model.isEmpty();
}

}  // namespace trainscope::testing
