# railtune_tuner_model: the tuner's cost model (inputs from NCCL's values and the rail map, the
# alpha-beta model per algorithm and protocol with its NVL72 corrections, the advice). It goes into
# libnccl-tuner-railtune.so, hence PIC and hidden visibility; it never links the emulator.
railtune_add_plugin_code(railtune_tuner_model STATIC
  ${CMAKE_CURRENT_LIST_DIR}/model_inputs.cc
  ${CMAKE_CURRENT_LIST_DIR}/bandwidth.cc
  ${CMAKE_CURRENT_LIST_DIR}/cost_model.cc
  ${CMAKE_CURRENT_LIST_DIR}/advise.cc
  ${CMAKE_CURRENT_LIST_DIR}/describe.cc)
target_link_libraries(railtune_tuner_model PUBLIC railtune_formats railtune_common)
