# Finds CUnit (Debian: libcunit1-dev), which ships neither a CMake config nor a
# pkg-config file on Debian 12.  Defines the imported target CUnit::CUnit.
find_path(CUNIT_INCLUDE_DIR NAMES CUnit/CUnit.h)
find_library(CUNIT_LIBRARY NAMES cunit)
include(FindPackageHandleStandardArgs)
find_package_handle_standard_args(CUnit REQUIRED_VARS CUNIT_LIBRARY CUNIT_INCLUDE_DIR)
if(CUnit_FOUND AND NOT TARGET CUnit::CUnit)
  add_library(CUnit::CUnit UNKNOWN IMPORTED)
  set_target_properties(CUnit::CUnit PROPERTIES
    IMPORTED_LOCATION "${CUNIT_LIBRARY}"
    INTERFACE_INCLUDE_DIRECTORIES "${CUNIT_INCLUDE_DIR}")
endif()
mark_as_advanced(CUNIT_INCLUDE_DIR CUNIT_LIBRARY)
