// SPDX-License-Identifier: Apache-2.0
//
// One registration function per kernel file (internal to engine/kernels); kernel.cpp lists them.
// Adding an op = one new file defining its function here and one line in kernel.cpp.
#pragma once

#include "engine/kernels/kernel.h"

namespace trainscope {

const OpRegistration& RegistrationAdd();
const OpRegistration& RegistrationAveragePool2D();
const OpRegistration& RegistrationConcatenation();
const OpRegistration& RegistrationConv2D();
const OpRegistration& RegistrationDepthwiseConv2D();
const OpRegistration& RegistrationExp();
const OpRegistration& RegistrationExpandDims();
const OpRegistration& RegistrationFullyConnected();
const OpRegistration& RegistrationGather();
const OpRegistration& RegistrationGru();
const OpRegistration& RegistrationLeakyRelu();
const OpRegistration& RegistrationLogistic();
const OpRegistration& RegistrationMaxPool2D();
const OpRegistration& RegistrationMean();
const OpRegistration& RegistrationMul();
const OpRegistration& RegistrationPad();
const OpRegistration& RegistrationRelu();
const OpRegistration& RegistrationRelu6();
const OpRegistration& RegistrationReshape();
const OpRegistration& RegistrationSoftmax();
const OpRegistration& RegistrationSqueeze();
const OpRegistration& RegistrationStridedSlice();
const OpRegistration& RegistrationSub();
const OpRegistration& RegistrationTanh();
const OpRegistration& RegistrationTranspose();

}  // namespace trainscope
