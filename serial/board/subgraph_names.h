// SPDX-License-Identifier: Apache-2.0
//
// The names an agent interns for a model (its AgentNameLookupFn): a tensor's own name, and for an
// operator, which has none in a circle file, the name of its first output. Null when the index
// is past the model or the name is empty. Used by every agent the project runs: the training
// board and the app's own recorder.
#pragma once

#include <cstdint>
#include <string>

#include "engine/model/graph.h"
#include "serial/protocol/messages.h"

namespace trainscope {

inline const char* SubgraphName(const Subgraph& main, wire::NameKind kind, uint32_t id) {
  int64_t tensor = id;
  if (kind == wire::NameKind::kOperator) {
    if (id >= main.operators.size() || main.operators[id].outputs.empty()) return nullptr;
    tensor = main.operators[id].outputs[0];
  }
  if (tensor < 0 || static_cast<size_t>(tensor) >= main.tensors.size()) return nullptr;
  const std::string& name = main.tensors[static_cast<size_t>(tensor)].name;
  return name.empty() ? nullptr : name.c_str();
}

}  // namespace trainscope
