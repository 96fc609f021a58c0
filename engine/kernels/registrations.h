// SPDX-License-Identifier: Apache-2.0
//
// One registration function per kernel file (internal to engine/kernels). kernel.cpp lists the
// operators with a backward kernel, forward_only_kernels.cpp the forward-only ones. Adding an op =
// one new file defining its function here and one line in one of those lists.
#pragma once

#include <cstddef>

#include "engine/kernels/kernel.h"

namespace trainscope {

// The forward-only registrations, none when TRAINSCOPE_FORWARD_ONLY_KERNELS is OFF.
size_t ForwardOnlyRegistrationCount();
const OpRegistration& ForwardOnlyRegistration(size_t index);

const OpRegistration& RegistrationAbs();
const OpRegistration& RegistrationAdd();
const OpRegistration& RegistrationAddN();
const OpRegistration& RegistrationArgMax();
const OpRegistration& RegistrationArgMin();
const OpRegistration& RegistrationAveragePool2D();
const OpRegistration& RegistrationBatchToSpaceNd();
const OpRegistration& RegistrationBroadcastTo();
const OpRegistration& RegistrationCast();
const OpRegistration& RegistrationCeil();
const OpRegistration& RegistrationConcatenation();
const OpRegistration& RegistrationConv2D();
const OpRegistration& RegistrationCos();
const OpRegistration& RegistrationCumsum();
const OpRegistration& RegistrationDepthToSpace();
const OpRegistration& RegistrationDepthwiseConv2D();
const OpRegistration& RegistrationDiv();
const OpRegistration& RegistrationElu();
const OpRegistration& RegistrationEqual();
const OpRegistration& RegistrationExp();
const OpRegistration& RegistrationExpandDims();
const OpRegistration& RegistrationFill();
const OpRegistration& RegistrationFloor();
const OpRegistration& RegistrationFloorDiv();
const OpRegistration& RegistrationFloorMod();
const OpRegistration& RegistrationFullyConnected();
const OpRegistration& RegistrationGather();
const OpRegistration& RegistrationGatherNd();
const OpRegistration& RegistrationGelu();
const OpRegistration& RegistrationGreater();
const OpRegistration& RegistrationGreaterEqual();
const OpRegistration& RegistrationGru();
const OpRegistration& RegistrationHardSwish();
const OpRegistration& RegistrationL2Normalization();
const OpRegistration& RegistrationLeakyRelu();
const OpRegistration& RegistrationLess();
const OpRegistration& RegistrationLessEqual();
const OpRegistration& RegistrationLog();
const OpRegistration& RegistrationLogicalAnd();
const OpRegistration& RegistrationLogicalNot();
const OpRegistration& RegistrationLogicalOr();
const OpRegistration& RegistrationLogistic();
const OpRegistration& RegistrationLogSoftmax();
const OpRegistration& RegistrationMaximum();
const OpRegistration& RegistrationMaxPool2D();
const OpRegistration& RegistrationMean();
const OpRegistration& RegistrationMinimum();
const OpRegistration& RegistrationMirrorPad();
const OpRegistration& RegistrationMul();
const OpRegistration& RegistrationNeg();
const OpRegistration& RegistrationNotEqual();
const OpRegistration& RegistrationPack();
const OpRegistration& RegistrationPad();
const OpRegistration& RegistrationPadV2();
const OpRegistration& RegistrationPrelu();
const OpRegistration& RegistrationReduceMax();
const OpRegistration& RegistrationReduceMin();
const OpRegistration& RegistrationReduceProd();
const OpRegistration& RegistrationRelu();
const OpRegistration& RegistrationRelu6();
const OpRegistration& RegistrationReshape();
const OpRegistration& RegistrationResizeBilinear();
const OpRegistration& RegistrationResizeNearestNeighbor();
const OpRegistration& RegistrationRound();
const OpRegistration& RegistrationRsqrt();
const OpRegistration& RegistrationSelectV2();
const OpRegistration& RegistrationSin();
const OpRegistration& RegistrationSlice();
const OpRegistration& RegistrationSoftmax();
const OpRegistration& RegistrationSpaceToBatchNd();
const OpRegistration& RegistrationSpaceToDepth();
const OpRegistration& RegistrationSplit();
const OpRegistration& RegistrationSplitV();
const OpRegistration& RegistrationSqrt();
const OpRegistration& RegistrationSquare();
const OpRegistration& RegistrationSquaredDifference();
const OpRegistration& RegistrationSqueeze();
const OpRegistration& RegistrationStridedSlice();
const OpRegistration& RegistrationSub();
const OpRegistration& RegistrationSum();
const OpRegistration& RegistrationTanh();
const OpRegistration& RegistrationTranspose();
const OpRegistration& RegistrationTransposeConv();
const OpRegistration& RegistrationUnidirectionalSequenceLstm();
const OpRegistration& RegistrationUnpack();
const OpRegistration& RegistrationZerosLike();

}  // namespace trainscope
