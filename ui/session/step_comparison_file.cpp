// SPDX-License-Identifier: Apache-2.0
#include "ui/session/step_comparison_file.h"

#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QJsonParseError>

#include <algorithm>
#include <cmath>
#include <limits>
#include <tuple>

#include "engine/model/opcodes.h"

namespace trainscope {
namespace {

// Integers a JSON number (a double) holds exactly.
constexpr double kMaxExactInteger = 9007199254740992.0;  // 2^53
constexpr int kMaxRank = 16;
constexpr int kMaxKnownDifferences = 64;

Status Bad(const QString& where, const QString& what) {
  return Status::Error(StatusCode::kInvalidFile, "%s: %s", qPrintable(where), qPrintable(what));
}

QString Field(const QString& where, const char* key) {
  if (where.isEmpty()) return QLatin1String(key);
  return where + QLatin1Char('.') + QLatin1String(key);
}

QString Item(const QString& where, qsizetype index) {
  return QStringLiteral("%1[%2]").arg(where).arg(index);
}

QString TypeName(const QJsonValue& value) {
  switch (value.type()) {
    case QJsonValue::Null:
      return QStringLiteral("null");
    case QJsonValue::Bool:
      return QStringLiteral("a boolean");
    case QJsonValue::Double:
      return QStringLiteral("a number");
    case QJsonValue::String:
      return QStringLiteral("a string");
    case QJsonValue::Array:
      return QStringLiteral("an array");
    case QJsonValue::Object:
      return QStringLiteral("an object");
    case QJsonValue::Undefined:
      break;
  }
  return QStringLiteral("missing");
}

Status Expected(const QString& where, const char* what, const QJsonValue& value) {
  return Bad(where,
             QStringLiteral("expected %1, found %2").arg(QLatin1String(what), TypeName(value)));
}

// A number the way `diff` writes them: a JSON number, or "nan", "inf", "-inf" for the others.
bool NumberOf(const QJsonValue& value, double* out) {
  if (value.isDouble()) {
    *out = value.toDouble();
    return true;
  }
  const QString text = value.toString();
  if (text == QLatin1String("nan")) {
    *out = std::numeric_limits<double>::quiet_NaN();
  } else if (text == QLatin1String("inf")) {
    *out = std::numeric_limits<double>::infinity();
  } else if (text == QLatin1String("-inf")) {
    *out = -std::numeric_limits<double>::infinity();
  } else {
    return false;
  }
  return true;
}

Status ReadNumber(const QJsonObject& o, const char* key, const QString& where, double* out) {
  const QJsonValue value = o.value(QLatin1String(key));
  if (!NumberOf(value, out)) return Expected(Field(where, key), "a number", value);
  return Status::Ok();
}

Status ReadCount(const QJsonObject& o, const char* key, const QString& where, uint64_t* out,
                 double max = kMaxExactInteger) {
  const QJsonValue value = o.value(QLatin1String(key));
  if (!value.isDouble()) return Expected(Field(where, key), "a whole number", value);
  const double d = value.toDouble();
  if (!(d >= 0.0) || d != std::floor(d) || d > max) {
    return Bad(Field(where, key),
               QStringLiteral("%1 is not a whole number from 0 to %2").arg(d).arg(max, 0, 'g', 17));
  }
  *out = static_cast<uint64_t>(d);
  return Status::Ok();
}

Status ReadBool(const QJsonObject& o, const char* key, const QString& where, bool* out) {
  const QJsonValue value = o.value(QLatin1String(key));
  if (!value.isBool()) return Expected(Field(where, key), "true or false", value);
  *out = value.toBool();
  return Status::Ok();
}

Status ReadString(const QJsonObject& o, const char* key, const QString& where, QString* out) {
  const QJsonValue value = o.value(QLatin1String(key));
  if (!value.isString()) return Expected(Field(where, key), "a string", value);
  *out = value.toString();
  return Status::Ok();
}

Status ReadObject(const QJsonObject& o, const char* key, const QString& where, QJsonObject* out) {
  const QJsonValue value = o.value(QLatin1String(key));
  if (!value.isObject()) return Expected(Field(where, key), "an object", value);
  *out = value.toObject();
  return Status::Ok();
}

Status ReadArray(const QJsonObject& o, const char* key, const QString& where, QJsonArray* out) {
  const QJsonValue value = o.value(QLatin1String(key));
  if (!value.isArray()) return Expected(Field(where, key), "an array", value);
  *out = value.toArray();
  return Status::Ok();
}

// "known_onert_differences": a bounded list of sentences.
Status ReadKnownDifferences(const QJsonObject& o, const QString& where, QStringList* out) {
  QJsonArray known;
  TS_RETURN_IF_ERROR(ReadArray(o, "known_onert_differences", where, &known));
  const QString list = Field(where, "known_onert_differences");
  if (known.size() > kMaxKnownDifferences) {
    return Bad(list, QStringLiteral("more than %1 entries").arg(kMaxKnownDifferences));
  }
  for (qsizetype i = 0; i < known.size(); ++i) {
    if (!known[i].isString()) return Expected(Item(list, i), "a string", known[i]);
    *out << known[i].toString();
  }
  return Status::Ok();
}

Status ReadAspect(const QJsonObject& o, const QString& where, TensorAspect* out) {
  QString text;
  TS_RETURN_IF_ERROR(ReadString(o, "aspect", where, &text));
  for (TensorAspect aspect : {TensorAspect::kValue, TensorAspect::kGradient, TensorAspect::kAdamM,
                              TensorAspect::kAdamV}) {
    if (text == QLatin1String(TensorAspectName(aspect))) {
      *out = aspect;
      return Status::Ok();
    }
  }
  return Bad(Field(where, "aspect"),
             QStringLiteral("'%1' is none of value, gradient, Adam m, Adam v").arg(text));
}

Status ReadValues(const QJsonObject& o, const char* key, const QString& where, uint64_t expected,
                  std::vector<float>* out) {
  QJsonArray array;
  TS_RETURN_IF_ERROR(ReadArray(o, key, where, &array));
  if (static_cast<uint64_t>(array.size()) != expected) {
    return Bad(Field(where, key), QStringLiteral("%1 values, the shape has %2")
                                      .arg(array.size())
                                      .arg(static_cast<qulonglong>(expected)));
  }
  out->reserve(static_cast<size_t>(expected));
  for (qsizetype i = 0; i < array.size(); ++i) {
    double value = 0.0;
    if (!NumberOf(array[i], &value)) {
      return Expected(Item(Field(where, key), i), "a number", array[i]);
    }
    out->push_back(static_cast<float>(value));
  }
  return Status::Ok();
}

// The metric figures of a pair compared with the same shape.
Status ReadDifference(const QJsonObject& o, const QString& where, uint64_t values,
                      TensorDifference* d) {
  TS_RETURN_IF_ERROR(ReadCount(o, "count", where, &d->count));
  TS_RETURN_IF_ERROR(ReadNumber(o, "max_abs", where, &d->max_abs));
  TS_RETURN_IF_ERROR(ReadCount(o, "max_abs_index", where, &d->max_abs_index));
  TS_RETURN_IF_ERROR(ReadNumber(o, "rmse", where, &d->rmse));
  TS_RETURN_IF_ERROR(ReadNumber(o, "relative_l2", where, &d->relative_l2));
  TS_RETURN_IF_ERROR(ReadNumber(o, "cosine", where, &d->cosine));
  TS_RETURN_IF_ERROR(ReadCount(o, "max_ulp", where, &d->max_ulp));
  TS_RETURN_IF_ERROR(ReadCount(o, "nonfinite_mismatches", where, &d->nonfinite_mismatches));
  TS_RETURN_IF_ERROR(ReadCount(o, "board_nonfinite", where, &d->board_nonfinite));
  TS_RETURN_IF_ERROR(ReadCount(o, "reference_nonfinite", where, &d->reference_nonfinite));
  // Positions finite on both sides exclude those non-finite on either side.
  const auto beyond = [&](const char* key, const QString& what) {
    return Bad(Field(where, key), QStringLiteral("%1 is more than the %2 values of the shape")
                                      .arg(what)
                                      .arg(static_cast<qulonglong>(values)));
  };
  const auto plus_count = [&](uint64_t n) {
    return QStringLiteral("%1 with count %2")
        .arg(static_cast<qulonglong>(n))
        .arg(static_cast<qulonglong>(d->count));
  };
  if (d->count > values) return beyond("count", QString::number(d->count));
  if (d->count + d->board_nonfinite > values) {
    return beyond("board_nonfinite", plus_count(d->board_nonfinite));
  }
  if (d->count + d->reference_nonfinite > values) {
    return beyond("reference_nonfinite", plus_count(d->reference_nonfinite));
  }
  if (d->nonfinite_mismatches > values - d->count) {
    return beyond("nonfinite_mismatches", plus_count(d->nonfinite_mismatches));
  }
  if (d->count > 0 && d->max_abs_index >= values) {
    return Bad(Field(where, "max_abs_index"), QStringLiteral("%1 is outside the %2 values")
                                                  .arg(static_cast<qulonglong>(d->max_abs_index))
                                                  .arg(static_cast<qulonglong>(values)));
  }
  return Status::Ok();
}

// The counts the file gives against those of its values (the figures are computed from
// the same floats by CompareTensors, so the counts agree exactly).
Status CheckCounts(const QString& where, const ComparedTensor& t) {
  const TensorDifference& file = t.pair.difference;
  const TensorDifference values =
      CompareTensors(t.board_values.data(), t.reference_values.data(), t.board_values.size());
  const auto differ = [&](const char* key, uint64_t in_file, uint64_t in_values) {
    return Bad(Field(where, key), QStringLiteral("%1, but the values give %2")
                                      .arg(static_cast<qulonglong>(in_file))
                                      .arg(static_cast<qulonglong>(in_values)));
  };
  if (file.count != values.count) return differ("count", file.count, values.count);
  if (file.board_nonfinite != values.board_nonfinite) {
    return differ("board_nonfinite", file.board_nonfinite, values.board_nonfinite);
  }
  if (file.reference_nonfinite != values.reference_nonfinite) {
    return differ("reference_nonfinite", file.reference_nonfinite, values.reference_nonfinite);
  }
  if (file.nonfinite_mismatches != values.nonfinite_mismatches) {
    return differ("nonfinite_mismatches", file.nonfinite_mismatches, values.nonfinite_mismatches);
  }
  return Status::Ok();
}

class Reader {
 public:
  explicit Reader(StepComparisonFile* file) : file_(file) {}

  Status readTensor(const QJsonValue& value, const QString& where, ProbeMoment moment,
                    uint32_t op) {
    if (file_->tensors.size() >= kMaxComparisonTensors) {
      return Bad(where, QStringLiteral("more than %1 tensors").arg(kMaxComparisonTensors));
    }
    if (!value.isObject()) return Expected(where, "a tensor object", value);
    const QJsonObject o = value.toObject();
    ComparedTensor t;
    TensorComparison& c = t.pair;
    c.point.moment = moment;
    c.read.op_index = op;
    uint64_t number = 0;
    TS_RETURN_IF_ERROR(ReadCount(o, "tensor", where, &number, INT32_MAX));
    c.read.tensor = static_cast<int32_t>(number);
    TS_RETURN_IF_ERROR(ReadString(o, "name", where, &t.name));
    QString role;
    TS_RETURN_IF_ERROR(ReadString(o, "role", where, &role));
    c.read.role = role.toStdString();
    TS_RETURN_IF_ERROR(ReadAspect(o, where, &c.read.aspect));
    TS_RETURN_IF_ERROR(ReadCount(o, "sample", where, &number, UINT32_MAX));
    c.point.sample = static_cast<uint32_t>(number);
    TS_RETURN_IF_ERROR(ReadBool(o, "board_held", where, &c.board_held));
    TS_RETURN_IF_ERROR(ReadBool(o, "reference_held", where, &c.reference_held));
    TS_RETURN_IF_ERROR(ReadBool(o, "divergent", where, &c.divergent));
    QString reason;
    if (!c.board_held) {
      TS_RETURN_IF_ERROR(ReadString(o, "board_reason", where, &reason));
      c.board_reason = reason.toStdString();
    }
    if (!c.reference_held) {
      TS_RETURN_IF_ERROR(ReadString(o, "reference_reason", where, &reason));
      c.reference_reason = reason.toStdString();
    }
    if (t.bothHeld()) {
      TS_RETURN_IF_ERROR(readShape(o, where, &c.shape));
      TS_RETURN_IF_ERROR(ReadBool(o, "shape_matches", where, &c.shape_matches));
    }
    const uint64_t values = t.valueCount();
    if (c.shape_matches) {
      TS_RETURN_IF_ERROR(ReadDifference(o, where, values, &c.difference));
      const bool board = o.contains(QLatin1String("board_values"));
      const bool reference = o.contains(QLatin1String("reference_values"));
      if (board != reference) {
        return Bad(where, QStringLiteral("has %1 but not %2")
                              .arg(QLatin1String(board ? "board_values" : "reference_values"),
                                   QLatin1String(board ? "reference_values" : "board_values")));
      }
      if (board) {
        total_values_ += 2 * values;
        if (total_values_ > kMaxComparisonTotalValues) {
          return Bad(where, QStringLiteral("the file holds more than %1 values in all")
                                .arg(static_cast<qulonglong>(kMaxComparisonTotalValues)));
        }
        TS_RETURN_IF_ERROR(ReadValues(o, "board_values", where, values, &t.board_values));
        TS_RETURN_IF_ERROR(ReadValues(o, "reference_values", where, values, &t.reference_values));
        t.has_values = true;
        TS_RETURN_IF_ERROR(CheckCounts(where, t));
      }
    }
    file_->tensors.push_back(std::move(t));
    return Status::Ok();
  }

  Status readOp(const QJsonValue& value, const QString& where) {
    if (!value.isObject()) return Expected(where, "an op object", value);
    const QJsonObject o = value.toObject();
    ComparedOp op;
    uint64_t number = 0;
    TS_RETURN_IF_ERROR(ReadCount(o, "op", where, &number, INT32_MAX));
    op.op = static_cast<uint32_t>(number);
    TS_RETURN_IF_ERROR(ReadString(o, "opcode", where, &op.opcode));
    TS_RETURN_IF_ERROR(ReadCount(o, "backward_step", where, &number, INT32_MAX));
    op.backward_step = static_cast<uint32_t>(number);
    for (const ComparedOp& other : file_->ops) {
      if (other.op == op.op) {
        return Bad(Field(where, "op"), QStringLiteral("op %1 is listed twice").arg(op.op));
      }
      if (other.backward_step >= op.backward_step) {
        return Bad(Field(where, "backward_step"),
                   QStringLiteral("%1 after %2: the ops are not in backward order")
                       .arg(op.backward_step)
                       .arg(other.backward_step));
      }
    }
    // Optional: reports of older diffs list the known differences only at their first
    // divergent op.
    if (o.contains(QLatin1String("known_onert_differences"))) {
      TS_RETURN_IF_ERROR(ReadKnownDifferences(o, where, &op.known_onert_differences));
      file_->known_differences_per_op = true;
    }
    QJsonArray tensors;
    TS_RETURN_IF_ERROR(ReadArray(o, "tensors", where, &tensors));
    const QString list = Field(where, "tensors");
    for (qsizetype i = 0; i < tensors.size(); ++i) {
      op.tensors.push_back(file_->tensors.size());
      TS_RETURN_IF_ERROR(
          readTensor(tensors[i], Item(list, i), ProbeMoment::kAfterBackwardOp, op.op));
      file_->tensors.back().pair.point.op_index = op.op;
      file_->tensors.back().pair.point.backward_step = op.backward_step;
    }
    file_->ops.push_back(std::move(op));
    return Status::Ok();
  }

 private:
  Status readShape(const QJsonObject& o, const QString& where, std::vector<int32_t>* shape) {
    QJsonArray array;
    TS_RETURN_IF_ERROR(ReadArray(o, "shape", where, &array));
    const QString field = Field(where, "shape");
    if (array.size() > kMaxRank) {
      return Bad(field,
                 QStringLiteral("%1 dimensions, at most %2").arg(array.size()).arg(kMaxRank));
    }
    uint64_t product = 1;
    for (qsizetype i = 0; i < array.size(); ++i) {
      const double d = array[i].toDouble(-1.0);
      if (!array[i].isDouble() || d < 0.0 || d != std::floor(d) || d > INT32_MAX) {
        return Bad(Item(field, i), QStringLiteral("not a dimension (a whole number from 0)"));
      }
      shape->push_back(static_cast<int32_t>(d));
      product *= static_cast<uint64_t>(d);
      if (product > kMaxComparisonTensorValues) {
        return Bad(field, QStringLiteral("more than %1 values")
                              .arg(static_cast<qulonglong>(kMaxComparisonTensorValues)));
      }
    }
    return Status::Ok();
  }

  StepComparisonFile* file_;
  uint64_t total_values_ = 0;
};

Status ReadThresholds(const QJsonObject& root, DivergenceThresholds* t) {
  QJsonObject o;
  TS_RETURN_IF_ERROR(ReadObject(root, "thresholds", QString(), &o));
  const QString where = QStringLiteral("thresholds");
  TS_RETURN_IF_ERROR(ReadNumber(o, "relative_l2", where, &t->relative_l2));
  TS_RETURN_IF_ERROR(ReadNumber(o, "max_abs", where, &t->max_abs));
  TS_RETURN_IF_ERROR(ReadNumber(o, "min_cosine", where, &t->min_cosine));
  // Written only when set: without it every ulp distance is within.
  if (o.contains(QLatin1String("max_ulp"))) {
    TS_RETURN_IF_ERROR(ReadCount(o, "max_ulp", where, &t->max_ulp));
  }
  if (std::isnan(t->relative_l2) || std::isnan(t->max_abs) || std::isnan(t->min_cosine)) {
    return Bad(where, QStringLiteral("a threshold is NaN"));
  }
  return Status::Ok();
}

Status ReadTransfer(const QJsonObject& root, ComparisonTransfer* t) {
  QJsonObject o;
  TS_RETURN_IF_ERROR(ReadObject(root, "transfer", QString(), &o));
  const QString where = QStringLiteral("transfer");
  TS_RETURN_IF_ERROR(ReadCount(o, "requests", where, &t->requests));
  TS_RETURN_IF_ERROR(ReadCount(o, "not_held", where, &t->not_held));
  TS_RETURN_IF_ERROR(ReadCount(o, "values", where, &t->values));
  TS_RETURN_IF_ERROR(ReadCount(o, "chunks", where, &t->chunks));
  TS_RETURN_IF_ERROR(ReadCount(o, "payload_bytes", where, &t->payload_bytes));
  TS_RETURN_IF_ERROR(ReadCount(o, "wire_bytes", where, &t->wire_bytes));
  TS_RETURN_IF_ERROR(ReadNumber(o, "seconds", where, &t->seconds));
  if (!(t->seconds >= 0.0) || !std::isfinite(t->seconds)) {
    return Bad(Field(where, "seconds"), QStringLiteral("not a duration"));
  }
  return Status::Ok();
}

Status ReadFirstDivergent(const QJsonObject& root, StepComparisonFile* file) {
  const QJsonValue op = root.value(QLatin1String("first_divergent_op"));
  if (op.isNull()) return Status::Ok();
  uint64_t index = 0;
  TS_RETURN_IF_ERROR(ReadCount(root, "first_divergent_op", QString(), &index, INT32_MAX));
  const bool listed =
      std::any_of(file->tensors.begin(), file->tensors.end(),
                  [&](const ComparedTensor& t) { return t.pair.read.op_index == index; });
  if (!listed) {
    return Bad(QStringLiteral("first_divergent_op"),
               QStringLiteral("op %1 has no tensor in the comparison")
                   .arg(static_cast<qulonglong>(index)));
  }
  file->file_first_divergent_op = static_cast<int64_t>(index);
  QJsonObject first;
  TS_RETURN_IF_ERROR(ReadObject(root, "first_divergent", QString(), &first));
  const QString where = QStringLiteral("first_divergent");
  uint64_t first_op = 0;
  TS_RETURN_IF_ERROR(ReadCount(first, "op", where, &first_op, INT32_MAX));
  if (first_op != index) {
    return Bad(Field(where, "op"), QStringLiteral("%1, but first_divergent_op is %2")
                                       .arg(static_cast<qulonglong>(first_op))
                                       .arg(static_cast<qulonglong>(index)));
  }
  return ReadKnownDifferences(first, where, &file->known_onert_differences);
}

// Each sample's backward ops in turn, then the update: the order of CompareStep.
std::vector<size_t> StepOrder(const StepComparisonFile& file) {
  std::vector<size_t> order(file.tensors.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  const auto key = [&](size_t i) {
    const TensorComparison& c = file.tensors[i].pair;
    const bool update = c.point.moment == ProbeMoment::kAfterUpdate;
    return std::make_tuple(update, update ? 0u : c.point.sample, i);
  };
  std::sort(order.begin(), order.end(), [&](size_t a, size_t b) { return key(a) < key(b); });
  return order;
}

}  // namespace

uint64_t ComparedTensor::valueCount() const {
  if (!bothHeld()) return 0;
  uint64_t product = 1;
  for (int32_t d : pair.shape) product *= static_cast<uint64_t>(d);
  return product;
}

bool StepComparisonFile::hasValues() const {
  return std::any_of(tensors.begin(), tensors.end(),
                     [](const ComparedTensor& t) { return t.has_values; });
}

FiguresBeyond FiguresBeyondThresholds(const TensorDifference& difference,
                                      const DivergenceThresholds& thresholds) {
  constexpr double kInf = std::numeric_limits<double>::infinity();
  DivergenceThresholds none;
  none.relative_l2 = kInf;
  none.max_abs = kInf;
  none.max_ulp = std::numeric_limits<uint64_t>::max();
  none.min_cosine = -kInf;
  TensorDifference finite = difference;
  finite.nonfinite_mismatches = 0;
  const auto beyond = [&](auto set) {
    DivergenceThresholds one = none;
    set(&one);
    return Diverges(finite, one);
  };
  FiguresBeyond out;
  out.relative_l2 =
      beyond([&](DivergenceThresholds* t) { t->relative_l2 = thresholds.relative_l2; });
  out.max_abs = beyond([&](DivergenceThresholds* t) { t->max_abs = thresholds.max_abs; });
  out.max_ulp = beyond([&](DivergenceThresholds* t) { t->max_ulp = thresholds.max_ulp; });
  out.cosine = beyond([&](DivergenceThresholds* t) { t->min_cosine = thresholds.min_cosine; });
  TensorDifference only_nonfinite;
  only_nonfinite.nonfinite_mismatches = difference.nonfinite_mismatches;
  out.nonfinite = Diverges(only_nonfinite, none);
  return out;
}

ComparisonVerdict EvaluateComparison(const StepComparisonFile& file,
                                     const DivergenceThresholds& thresholds) {
  ComparisonVerdict verdict;
  verdict.thresholds = thresholds;
  verdict.divergent.resize(file.tensors.size(), false);
  for (size_t i = 0; i < file.tensors.size(); ++i) {
    const TensorComparison& pair = file.tensors[i].pair;
    verdict.divergent[i] = Diverges(pair, thresholds);
    if (verdict.divergent[i]) ++verdict.divergent_tensors;
    if (pair.shape_matches &&
        (verdict.largest < 0 ||
         pair.difference.relative_l2 >
             file.tensors[static_cast<size_t>(verdict.largest)].pair.difference.relative_l2)) {
      verdict.largest = static_cast<int64_t>(i);
    }
  }
  for (size_t i : file.step_order) {
    if (!verdict.divergent[i]) continue;
    verdict.first_divergent_tensor = static_cast<int64_t>(i);
    verdict.first_divergent_op = file.tensors[i].pair.read.op_index;
    break;
  }
  verdict.op_divergent.resize(file.ops.size(), false);
  for (size_t k = 0; k < file.ops.size(); ++k) {
    for (size_t i : file.ops[k].tensors) {
      if (verdict.divergent[i]) verdict.op_divergent[k] = true;
    }
  }
  return verdict;
}

Status ParseStepComparison(const QByteArray& json, StepComparisonPtr* out) {
  if (json.size() > kMaxComparisonFileBytes) {
    return Status::Error(StatusCode::kInvalidFile, "larger than %lld MiB",
                         static_cast<long long>(kMaxComparisonFileBytes >> 20));
  }
  QJsonParseError error;
  const QJsonDocument document = QJsonDocument::fromJson(json, &error);
  if (error.error != QJsonParseError::NoError) {
    return Status::Error(StatusCode::kInvalidFile, "not JSON: %s at byte %d",
                         qPrintable(error.errorString()), static_cast<int>(error.offset));
  }
  if (!document.isObject()) {
    return Status::Error(StatusCode::kInvalidFile,
                         "expected an object (trainscope-cli diff --json), found %s",
                         document.isArray() ? "an array" : "a bare value");
  }
  const QJsonObject root = document.object();
  auto file = std::make_shared<StepComparisonFile>();
  TS_RETURN_IF_ERROR(ReadString(root, "board", QString(), &file->board));
  TS_RETURN_IF_ERROR(ReadString(root, "endpoint", QString(), &file->endpoint));
  TS_RETURN_IF_ERROR(ReadString(root, "model", QString(), &file->model));
  TS_RETURN_IF_ERROR(ReadCount(root, "step", QString(), &file->step));
  TS_RETURN_IF_ERROR(ReadThresholds(root, &file->thresholds));
  Reader reader(file.get());
  QJsonArray ops;
  TS_RETURN_IF_ERROR(ReadArray(root, "ops", QString(), &ops));
  for (qsizetype i = 0; i < ops.size(); ++i) {
    TS_RETURN_IF_ERROR(reader.readOp(ops[i], Item(QStringLiteral("ops"), i)));
  }
  file->update_begin = file->tensors.size();
  QJsonArray update;
  TS_RETURN_IF_ERROR(ReadArray(root, "update", QString(), &update));
  for (qsizetype i = 0; i < update.size(); ++i) {
    const QString where = Item(QStringLiteral("update"), i);
    uint64_t op = 0;
    if (!update[i].isObject()) return Expected(where, "a tensor object", update[i]);
    TS_RETURN_IF_ERROR(ReadCount(update[i].toObject(), "op", where, &op, INT32_MAX));
    TS_RETURN_IF_ERROR(
        reader.readTensor(update[i], where, ProbeMoment::kAfterUpdate, static_cast<uint32_t>(op)));
  }
  TS_RETURN_IF_ERROR(ReadCount(root, "compared", QString(), &file->compared));
  TS_RETURN_IF_ERROR(ReadCount(root, "held_on_one_side", QString(), &file->held_on_one_side));
  TS_RETURN_IF_ERROR(ReadTransfer(root, &file->transfer));
  TS_RETURN_IF_ERROR(ReadFirstDivergent(root, file.get()));
  file->step_order = StepOrder(*file);
  *out = std::move(file);
  return Status::Ok();
}

Status LoadStepComparison(const QString& path, StepComparisonPtr* out) {
  const std::string name = QFileInfo(path).fileName().toStdString();
  QFile file(path);
  if (!file.open(QIODevice::ReadOnly)) {
    return Status::Error(StatusCode::kIoError, "%s: %s", name.c_str(),
                         qPrintable(file.errorString()));
  }
  if (file.size() > kMaxComparisonFileBytes) {
    return Status::Error(StatusCode::kInvalidFile, "%s: larger than %lld MiB", name.c_str(),
                         static_cast<long long>(kMaxComparisonFileBytes >> 20));
  }
  Status status = ParseStepComparison(file.readAll(), out);
  if (!status.ok()) status.Prepend(name);
  return status;
}

Status CheckFitsModel(const StepComparisonFile& file, const Subgraph& subgraph) {
  const size_t op_count = subgraph.operators.size();
  const auto op_range = [&](const QString& where, uint32_t op) {
    return Bad(where, QStringLiteral("op %1 is outside the model's %2 operators (0..%3)")
                          .arg(op)
                          .arg(op_count)
                          .arg(static_cast<long long>(op_count) - 1));
  };
  for (size_t k = 0; k < file.ops.size(); ++k) {
    const ComparedOp& op = file.ops[k];
    const QString where = Item(QStringLiteral("ops"), static_cast<qsizetype>(k));
    if (op.op >= op_count) return op_range(Field(where, "op"), op.op);
    const QString opcode = QLatin1String(OpcodeName(subgraph.operators[op.op].opcode));
    if (op.opcode != opcode) {
      return Bad(Field(where, "opcode"), QStringLiteral("op %1 is %2 in the file, %3 in the model")
                                             .arg(op.op)
                                             .arg(op.opcode, opcode));
    }
    if (op.backward_step != op_count - 1 - op.op) {
      return Bad(Field(where, "backward_step"),
                 QStringLiteral("%1, but op %2 of %3 is backward step %4")
                     .arg(op.backward_step)
                     .arg(op.op)
                     .arg(op_count)
                     .arg(op_count - 1 - op.op));
    }
  }
  for (size_t i = 0; i < file.tensors.size(); ++i) {
    const ComparedTensor& t = file.tensors[i];
    const QString where =
        i < file.update_begin
            ? QStringLiteral("tensor %1 of op %2").arg(t.pair.read.tensor).arg(t.pair.read.op_index)
            : Item(QStringLiteral("update"), static_cast<qsizetype>(i - file.update_begin));
    if (t.pair.read.op_index >= op_count) return op_range(where, t.pair.read.op_index);
    const auto tensor = static_cast<size_t>(t.pair.read.tensor);
    if (tensor >= subgraph.tensors.size()) {
      return Bad(where, QStringLiteral("tensor %1 is outside the model's %2 tensors")
                            .arg(t.pair.read.tensor)
                            .arg(subgraph.tensors.size()));
    }
    const QString name = QString::fromStdString(subgraph.tensors[tensor].name);
    if (t.name != name) {
      return Bad(where, QStringLiteral("tensor %1 is '%2' in the file, '%3' in the model")
                            .arg(t.pair.read.tensor)
                            .arg(t.name, name));
    }
  }
  return Status::Ok();
}

}  // namespace trainscope
