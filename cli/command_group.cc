// A group of subcommands (commands.h): one place that registers its members and runs the one chosen.
#include <memory>
#include <vector>

#include "cli/commands.h"

namespace railtune::cli {

Command addCommandGroup(CLI::App& parent, const std::string& name, const std::string& description,
                        std::initializer_list<AddCommand> members) {
  CLI::App* group = parent.add_subcommand(name, description);
  group->require_subcommand(1);
  auto added = std::make_shared<std::vector<Command>>();
  for (AddCommand add : members) added->push_back(add(*group));
  return {group, [added] {
            for (const Command& command : *added)
              if (command.app->parsed()) return command.run();
            return 2;  // unreachable: CLI11 requires one subcommand, and a missing one is a usage error
          }};
}

}  // namespace railtune::cli
