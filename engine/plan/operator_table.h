// SPDX-License-Identifier: Apache-2.0
//
// The operator table of docs/operators.md, generated from the kernel registrations and the
// onert-micro operator lists so the document cannot drift from the code: one row per operator
// the engine or onert-micro knows, with what each side runs and what the engine keeps of the
// forward pass for its backward kernel.
//
//   std::fputs(OperatorTableMarkdown().c_str(), stdout);  // trainscope-cli operators --markdown
#pragma once

#include <string>

namespace trainscope {

// The whole of docs/operators.md (a title, the column legend, a summary line and the table).
std::string OperatorTableMarkdown();

}  // namespace trainscope
