# `cmake --install build --prefix P`: P/bin/autoresearch and, under
# P/share/autoresearch, everything the binary reads at run time, laid out as in
# the source tree (the "home", src/core/paths.cpp): the harness sources it
# compiles per package, the headers packages include, the agents' context, the
# option files and prices, the package templates of `init`, the example
# packages, and the package format's documentation.
set(ar_data ${AR_INSTALL_DATA_DIR})
install(DIRECTORY include/autoresearch/harness DESTINATION ${ar_data}/include/autoresearch)
install(DIRECTORY src/harness DESTINATION ${ar_data}/src)
install(DIRECTORY context configs templates DESTINATION ${ar_data})
install(DIRECTORY kernels/matmul_cpu kernels/sparse_mla DESTINATION ${ar_data}/kernels
        PATTERN results EXCLUDE)
install(FILES docs/packages.md DESTINATION ${ar_data}/docs)
