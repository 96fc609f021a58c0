// SPDX-License-Identifier: Apache-2.0
//
// StateDump: what the views of a running app show, as JSON, for tests and bug reports
// (`trainscope MODEL [training options] --steps N --state-json FILE`). Every figure is read from
// the widget or panel that displays it, not computed again, so a test holding these numbers equal
// to `trainscope-cli memory --json` holds the displays equal to the CLI.
//
// Keys: setup.{optimizer, loss, batch, epochs, learning_rate}; layers_panel.{heap_peak_bytes,
// arena_bytes, trained_params}; memory_view.{current_bytes, peak_bytes, arena_bytes,
// max_stacked_bytes}; gradients_view.layers[] {tensor, op_index, trainable, l2_norm (null when
// frozen)}; steps_run; window.{minimum_width, minimum_height}; notices[]; training_available and
// training_unavailable_reason.
#pragma once

#include <QJsonObject>
#include <QString>

#include "engine/core/status.h"

namespace trainscope {

class AppController;
class MainWindow;
struct SessionSnapshot;

QJsonObject DescribeState(const MainWindow& window, const AppController& controller,
                          const SessionSnapshot& snapshot);

// A model that could not be opened for training, named with the reason; when it opened read-only,
// graph_operators and layers_panel.{inference_heap_peak_bytes, arena_bytes} too.
QJsonObject DescribeUnavailable(const MainWindow& window, const QString& reason);

// Written to a temporary name and renamed.
Status WriteStateJson(const QString& path, const QJsonObject& state);

}  // namespace trainscope
