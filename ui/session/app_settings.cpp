// SPDX-License-Identifier: Apache-2.0
#include "ui/session/app_settings.h"

namespace trainscope {

QSettings AppSettings() {
  return QSettings(QStringLiteral("TrainScope"), QStringLiteral("TrainScope"));
}

}  // namespace trainscope
