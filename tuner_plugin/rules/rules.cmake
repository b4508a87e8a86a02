# railtune_tuner_rules: the tuner's lookup index over its rules (the rules files themselves, their two
# readers and the definition of a match are a format: formats/tuner_rules/), and the scope of a
# communicator as NCCL describes it. It goes into libnccl-tuner-railtune.so, hence PIC, hidden
# visibility and no dependency beyond railtune_formats and railtune_common.
railtune_add_plugin_code(railtune_tuner_rules STATIC
  ${CMAKE_CURRENT_LIST_DIR}/rule.cc
  ${CMAKE_CURRENT_LIST_DIR}/rule_index.cc)
target_link_libraries(railtune_tuner_rules PUBLIC railtune_tuner_types railtune_formats_tuner_rules railtune_common)
