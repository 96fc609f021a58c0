// SPDX-License-Identifier: Apache-2.0
//
// Helpers shared by trainscope-cli and trainscope-board-sim: error output, option parsing for
// trainability and training knobs, raw float32 data files (onert-micro's driver convention:
// little-endian, sample-major, no header) and atomic file writes.
#pragma once

#include <QCommandLineParser>
#include <QString>

#include <cstdint>
#include <string>
#include <vector>

#include "engine/core/status.h"
#include "engine/core/training_options.h"
#include "engine/model/model.h"
#include "engine/plan/trainability.h"

namespace trainscope::cli {

// Prints "error: <message>" to stderr; returns `status` (1 failure, 2 usage).
int Fail(const QString& message, int status = 1);
int Fail(const Status& status);

// Parses `arguments`, handles --help; returns -1 to continue, or an exit status.
int ParseOrExit(QCommandLineParser* parser, const QStringList& arguments);

// engine/model/file_io's WriteFileAtomically: every write, the flush to disk and the close are
// checked before the rename, so a failure (a full disk) keeps the previous file.
Status WriteFileAtomically(const QString& path, const char* data, size_t size);

// Text from a board or a file, made safe for a terminal: valid UTF-8 is kept except control
// characters (C0, DEL, C1: they move the cursor, retitle the window, clear the screen), which
// become \xNN per byte like invalid bytes do; a backslash becomes "\\" so nothing reads as an
// escape that was not one. NUL bytes inside `size` are shown too.
std::string TerminalText(const char* data, size_t size);

// Adds --`name` with `help`; `value` names its argument, or nullptr for a flag.
void AddOption(QCommandLineParser* parser, const char* name, const char* help,
               const char* value = nullptr);

// The MODEL positional argument every command that reads one model takes.
void AddModelArgument(QCommandLineParser* parser);

// --batch N, shared by the trainers and the memory planners so the help reads the same.
void AddBatchOption(QCommandLineParser* parser);

// --train-layers N | --train-config FILE (a FILE overrides N, as onert-micro does).
void AddTrainabilityOptions(QCommandLineParser* parser);
Status ParseTrainability(const QCommandLineParser& parser, const Subgraph& subgraph,
                         TrainabilityConfig* config);

void AddOptimizerOption(QCommandLineParser* parser);
Status ParseOptimizer(const QString& text, OptimizerKind* kind);
Status ParseLoss(const QString& text, LossKind* kind);
Status ParseMetric(const QString& text, MetricKind* kind);
Status ParseUnsigned(const QCommandLineParser& parser, const QString& option, uint32_t minimum,
                     uint32_t* value);
// A finite number >= 0 (float) or >= `minimum` (double); an absent option leaves *value.
Status ParseFloat(const QCommandLineParser& parser, const QString& option, float* value);
Status ParseDouble(const QCommandLineParser& parser, const QString& option, double minimum,
                   double* value);

}  // namespace trainscope::cli
