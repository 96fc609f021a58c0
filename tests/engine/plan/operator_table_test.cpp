// SPDX-License-Identifier: Apache-2.0
//
// docs/operators.md is the generated operator table, byte for byte, and the table says what the
// registrations say: every registered operator has a row, forward-only operators keep nothing,
// trained operators name the tensors their backward reads.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <fstream>
#include <iterator>
#include <string>

#include "engine/kernels/kernel.h"
#include "engine/plan/operator_table.h"

namespace trainscope {
namespace {

using ::testing::HasSubstr;

TEST(OperatorTable, DocsOperatorsMdIsTheGeneratedTable) {
  const std::string path = std::string(TRAINSCOPE_SOURCE_DIR) + "/docs/operators.md";
  std::ifstream in(path, std::ios::binary);
  ASSERT_TRUE(in) << "cannot read " << path;
  const std::string document((std::istreambuf_iterator<char>(in)), {});
  EXPECT_EQ(document, OperatorTableMarkdown())
      << "docs/operators.md is out of date: regenerate it with "
         "`trainscope-cli operators --markdown > docs/operators.md`";
}

TEST(OperatorTable, EveryRegisteredOperatorHasARow) {
  const std::string table = OperatorTableMarkdown();
  for (size_t i = 0; i < RegisteredOperatorCount(); ++i) {
    const OpRegistration& registration = RegisteredOperator(i);
    const char* name = OpcodeName(registration.opcode);
    ASSERT_NE(name, nullptr);
    const std::string row = registration.custom_code != nullptr
                                ? std::string("CUSTOM '") + registration.custom_code + "'"
                                : std::string(name);
    EXPECT_THAT(table, HasSubstr("\n| " + row + " | yes | ")) << row;
  }
}

TEST(OperatorTable, RowsFollowTheRegistrations) {
  const std::string table = OperatorTableMarkdown();
  EXPECT_THAT(table, HasSubstr("\n| SPLIT | yes | - | yes | - | nothing (forward only) |\n"));
  EXPECT_THAT(table, HasSubstr("\n| SOFTMAX | yes | yes | yes | yes | output |\n"));
  EXPECT_THAT(table, HasSubstr("\n| MEAN | yes | yes | yes | - | input 1 |\n"));
  EXPECT_THAT(table, HasSubstr("\n| MUL | yes | yes | yes | - | inputs 0, 1; output if an "
                               "activation is fused; backward scratch |\n"));
  EXPECT_THAT(table, HasSubstr("\n| UNIDIRECTIONAL_SEQUENCE_LSTM | yes | - | yes | - | nothing "
                               "(forward only) |\n"));
  EXPECT_THAT(table,
              HasSubstr("\n| GRU | yes | yes | yes | yes | inputs 0, 5; backward scratch |\n"));
}

}  // namespace
}  // namespace trainscope
