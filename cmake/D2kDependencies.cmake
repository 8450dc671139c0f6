# Every dependency is found by header and library name, so the same file works with the
# system's Debian packages and with a prefix of unpacked packages carried to the GPU machine
# (pass -DCMAKE_PREFIX_PATH=<prefix>/usr; see tools/prepare_device.sh).

function(d2k_require_header target header)
  find_path(${target}_INCLUDE_DIR ${header} REQUIRED)
  add_library(d2k_dep_${target} INTERFACE)
  target_include_directories(d2k_dep_${target} SYSTEM INTERFACE ${${target}_INCLUDE_DIR})
  add_library(d2k::${target} ALIAS d2k_dep_${target})
endfunction()

function(d2k_require_static_library target header library)
  find_path(${target}_INCLUDE_DIR ${header} REQUIRED)
  find_library(${target}_LIBRARY NAMES lib${library}.a ${library} REQUIRED)
  add_library(d2k_dep_${target} INTERFACE)
  target_include_directories(d2k_dep_${target} SYSTEM INTERFACE ${${target}_INCLUDE_DIR})
  target_link_libraries(d2k_dep_${target} INTERFACE ${${target}_LIBRARY})
  add_library(d2k::${target} ALIAS d2k_dep_${target})
endfunction()

d2k_require_header(json nlohmann/json.hpp)
d2k_require_header(cli11 CLI/CLI.hpp)
d2k_require_header(dlpack dlpack/dlpack.h)
d2k_require_header(xxhash xxhash.h)
d2k_require_header(fmt fmt/format.h)
target_compile_definitions(d2k_dep_fmt INTERFACE FMT_HEADER_ONLY=1)
d2k_require_static_library(yaml yaml-cpp/yaml.h yaml-cpp)
d2k_require_static_library(sqlite sqlite3.h sqlite3)
# Formulas in task configs (work model, memory bounds). Debian ships muparser only as a shared
# library, which this then finds; on the GPU machine it comes unpacked, found through the RPATH.
d2k_require_static_library(muparser muParser.h muparser)
# The distribution check's chi-square tail probability (src/eval/distribution_check.cc), linked
# statically from Debian's libgsl-dev.
find_path(gsl_INCLUDE_DIR gsl/gsl_cdf.h)
find_library(gsl_LIBRARY NAMES libgsl.a gsl)
find_library(gslcblas_LIBRARY NAMES libgslcblas.a gslcblas)
if(NOT gsl_INCLUDE_DIR OR NOT gsl_LIBRARY OR NOT gslcblas_LIBRARY)
  message(FATAL_ERROR "GSL not found (gsl/gsl_cdf.h, libgsl, libgslcblas): install Debian's "
                      "libgsl-dev (tools/install_deps.sh), or unpack it into the prefix given "
                      "as CMAKE_PREFIX_PATH (tools/prepare_device.sh)")
endif()
add_library(d2k_dep_gsl INTERFACE)
target_include_directories(d2k_dep_gsl SYSTEM INTERFACE ${gsl_INCLUDE_DIR})
target_link_libraries(d2k_dep_gsl INTERFACE ${gsl_LIBRARY} ${gslcblas_LIBRARY} m)
add_library(d2k::gsl ALIAS d2k_dep_gsl)
find_package(Threads REQUIRED)
target_link_libraries(d2k_dep_sqlite INTERFACE Threads::Threads ${CMAKE_DL_LIBS} m)

# The judge's HTTP(S) client. Debian's cpp-httplib is a shared library built with OpenSSL (and
# zlib and brotli); its header declares a different class layout unless
# CPPHTTPLIB_OPENSSL_SUPPORT is defined, so the define is part of the dependency and OpenSSL's
# headers are needed. The zlib and brotli options only add classes d2k never uses.
find_path(httplib_INCLUDE_DIR httplib.h REQUIRED)
find_library(httplib_LIBRARY NAMES cpp-httplib REQUIRED)
find_package(OpenSSL REQUIRED)
add_library(d2k_dep_httplib INTERFACE)
target_include_directories(d2k_dep_httplib SYSTEM INTERFACE ${httplib_INCLUDE_DIR})
# Debian keeps OpenSSL's configuration headers in the multiarch folder, which the compiler
# searches on its own only under /usr (not in an unpacked prefix such as .device/root/usr).
if(CMAKE_LIBRARY_ARCHITECTURE AND EXISTS "${OPENSSL_INCLUDE_DIR}/${CMAKE_LIBRARY_ARCHITECTURE}")
  target_include_directories(d2k_dep_httplib SYSTEM INTERFACE
                             "${OPENSSL_INCLUDE_DIR}/${CMAKE_LIBRARY_ARCHITECTURE}")
endif()
target_compile_definitions(d2k_dep_httplib INTERFACE CPPHTTPLIB_OPENSSL_SUPPORT)
target_link_libraries(d2k_dep_httplib INTERFACE ${httplib_LIBRARY} OpenSSL::SSL OpenSSL::Crypto
                                                Threads::Threads)
add_library(d2k::httplib ALIAS d2k_dep_httplib)

# The embedded interpreter. D2K_PYTHON names the interpreter whose packages (torch, triton) the
# worker uses; on Debian that is the system /usr/bin/python3, not a pyenv shim.
if(NOT D2K_PYTHON)
  if(EXISTS /usr/bin/python3)
    set(D2K_PYTHON /usr/bin/python3)
  else()
    find_program(D2K_PYTHON python3 REQUIRED)
  endif()
endif()
set(D2K_PYTHON ${D2K_PYTHON} CACHE FILEPATH "Python interpreter embedded by the worker")
set(Python3_EXECUTABLE ${D2K_PYTHON})
find_package(Python3 REQUIRED COMPONENTS Interpreter Development.Embed)
execute_process(COMMAND ${D2K_PYTHON} -c "import pybind11; print(pybind11.get_include())"
                OUTPUT_VARIABLE D2K_PIP_PYBIND11 OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
find_path(pybind11_INCLUDE_DIR pybind11/embed.h HINTS ${D2K_PIP_PYBIND11} REQUIRED)
add_library(d2k_dep_python INTERFACE)
target_include_directories(d2k_dep_python SYSTEM INTERFACE ${pybind11_INCLUDE_DIR})
target_link_libraries(d2k_dep_python INTERFACE Python3::Python)
add_library(d2k::python ALIAS d2k_dep_python)

# CUDA is optional: only the driver API header is needed at build time; libcuda is opened at run
# time, so the same binary starts on machines without a driver and says so.
set(D2K_HAVE_CUDA OFF)
if(D2K_WITH_CUDA)
  find_package(CUDAToolkit QUIET)
  if(CUDAToolkit_FOUND)
    set(D2K_HAVE_CUDA ON)
  endif()
endif()
message(STATUS "d2k: python=${D2K_PYTHON} (${Python3_VERSION}), cuda backend=${D2K_HAVE_CUDA}")

if(D2K_BUILD_TESTS)
  find_package(GTest REQUIRED)
endif()
