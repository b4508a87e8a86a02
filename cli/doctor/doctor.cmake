# `railtune doctor` (cli/doctor/doctor.cc): its options and its printing; the checks are the doctor library's
# (doctor/, railtune_doctor).
target_sources(railtune PRIVATE ${CMAKE_CURRENT_LIST_DIR}/doctor.cc)
target_link_libraries(railtune PRIVATE railtune_doctor)
