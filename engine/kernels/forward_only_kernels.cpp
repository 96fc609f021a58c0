// SPDX-License-Identifier: Apache-2.0
//
// The forward-only kernels of the registry (operators that run in a model's frozen part). A build
// with TRAINSCOPE_FORWARD_ONLY_KERNELS=OFF compiles forward_only_kernels_none.cpp instead, which
// lists none, so a board that only trains leaves their code out of its flash.
#include <iterator>

#include "engine/kernels/registrations.h"

namespace trainscope {
namespace {

using RegistrationGetter = const OpRegistration& (*)();

constexpr RegistrationGetter kForwardOnly[] = {
    RegistrationAbs,
    RegistrationAddN,
    RegistrationArgMax,
    RegistrationArgMin,
    RegistrationBatchToSpaceNd,
    RegistrationBroadcastTo,
    RegistrationCast,
    RegistrationCeil,
    RegistrationCos,
    RegistrationCumsum,
    RegistrationDepthToSpace,
    RegistrationDiv,
    RegistrationElu,
    RegistrationEqual,
    RegistrationFill,
    RegistrationFloor,
    RegistrationFloorDiv,
    RegistrationFloorMod,
    RegistrationGatherNd,
    RegistrationGelu,
    RegistrationGreater,
    RegistrationGreaterEqual,
    RegistrationHardSwish,
    RegistrationL2Normalization,
    RegistrationLess,
    RegistrationLessEqual,
    RegistrationLog,
    RegistrationLogicalAnd,
    RegistrationLogicalNot,
    RegistrationLogicalOr,
    RegistrationLogSoftmax,
    RegistrationMaximum,
    RegistrationMinimum,
    RegistrationMirrorPad,
    RegistrationNeg,
    RegistrationNotEqual,
    RegistrationPack,
    RegistrationPadV2,
    RegistrationPrelu,
    RegistrationReduceMax,
    RegistrationReduceMin,
    RegistrationReduceProd,
    RegistrationResizeBilinear,
    RegistrationResizeNearestNeighbor,
    RegistrationRound,
    RegistrationRsqrt,
    RegistrationSelectV2,
    RegistrationSin,
    RegistrationSlice,
    RegistrationSpaceToBatchNd,
    RegistrationSpaceToDepth,
    RegistrationSplit,
    RegistrationSplitV,
    RegistrationSqrt,
    RegistrationSquare,
    RegistrationSquaredDifference,
    RegistrationSum,
    RegistrationTransposeConv,
    RegistrationUnidirectionalSequenceLstm,
    RegistrationUnpack,
    RegistrationZerosLike,
};

}  // namespace

size_t ForwardOnlyRegistrationCount() {
  return std::size(kForwardOnly);
}

const OpRegistration& ForwardOnlyRegistration(size_t index) {
  return kForwardOnly[index]();
}

}  // namespace trainscope
