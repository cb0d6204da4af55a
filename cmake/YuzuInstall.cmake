# Install rules for `cmake --install <build dir> [--prefix DIR]`.
# See docs/user-manual/deploy.md. Included from the top-level CMakeLists.txt
# after the agent's subdirectory (so TARGET yuzu-agent is known):
#
#   include(cmake/YuzuInstall.cmake)
#
# With CMake's default prefix, /usr/local, the layout is:
#   bin/yuzu-server, bin/yuzu-agent
#   lib/systemd/system/yuzu-server.service, yuzu-agent.service
#       (YUZU_SYSTEMD_UNIT_DIR; systemd reads /usr/local/lib/systemd/system)
#   etc/yuzu/yuzu-server.env, yuzu-agent.env
#       (examples: with prefix /usr/local that is /usr/local/etc/yuzu; the
#       units read /etc/yuzu/*.env, so copy and edit them there)
#   share/doc/yuzu/README.md, share/doc/yuzu/docs/...
#   share/yuzu/prometheus/, share/yuzu/grafana/ (alerting rules, dashboard)
#
# The units name /usr/local/bin/yuzu-{server,agent} in ExecStart=. Installed
# with another prefix they would start nothing, so the copies installed are
# rewritten to <prefix>/<bindir> (and their Documentation= paths to
# <prefix>/<docdir>). This file is therefore also the install-time script
# that does it: cmake_install.cmake includes it again with YUZU_UNIT_SOURCES
# set.

if(NOT DEFINED YUZU_UNIT_SOURCES)
  # ---- configure time: declare the rules -------------------------------
  include(GNUInstallDirs)

  set(YUZU_SYSTEMD_UNIT_DIR "lib/systemd/system" CACHE STRING
      "Where the systemd units are installed, relative to the prefix or absolute. Not \
CMAKE_INSTALL_LIBDIR: on Debian that is lib/<multiarch>, where systemd does not look.")

  get_filename_component(_yuzu_root "${CMAKE_CURRENT_LIST_DIR}/.." ABSOLUTE)

  install(TARGETS yuzu-server RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
  set(_yuzu_units "${_yuzu_root}/deploy/systemd/yuzu-server.service")
  set(_yuzu_env_files "${_yuzu_root}/deploy/systemd/yuzu-server.env")
  if(TARGET yuzu-agent)
    install(TARGETS yuzu-agent RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
    list(APPEND _yuzu_units "${_yuzu_root}/deploy/systemd/yuzu-agent.service")
    list(APPEND _yuzu_env_files "${_yuzu_root}/deploy/systemd/yuzu-agent.env")
  endif()

  # Units: rewritten for the prefix at install time (the prefix may be
  # changed then with --prefix), staged in the build tree, then installed
  # like any file (DESTDIR and install_manifest.txt included).
  install(CODE "
    set(YUZU_UNIT_SOURCES \"${_yuzu_units}\")
    set(YUZU_UNIT_STAGE_DIR \"${CMAKE_BINARY_DIR}/yuzu-install-units\")
    set(YUZU_UNIT_BINDIR \"${CMAKE_INSTALL_BINDIR}\")
    set(YUZU_UNIT_DOCDIR \"${CMAKE_INSTALL_DOCDIR}\")
    set(YUZU_UNIT_DESTINATION \"${YUZU_SYSTEMD_UNIT_DIR}\")
  ")
  install(SCRIPT "${CMAKE_CURRENT_LIST_FILE}")
  install(CODE "unset(YUZU_UNIT_SOURCES)")

  # Example environment files (no secrets in them; the live copies under
  # /etc/yuzu should be 0600).
  install(FILES ${_yuzu_env_files}
          DESTINATION ${CMAKE_INSTALL_SYSCONFDIR}/yuzu
          PERMISSIONS OWNER_READ OWNER_WRITE GROUP_READ WORLD_READ)

  # Documentation, with README.md's relative links (docs/...) intact.
  install(FILES "${_yuzu_root}/README.md" DESTINATION ${CMAKE_INSTALL_DOCDIR})
  install(DIRECTORY "${_yuzu_root}/docs" DESTINATION ${CMAKE_INSTALL_DOCDIR})

  # Prometheus alerting rules and the Grafana dashboard; OPTIONAL so that a
  # tree without them still installs.
  install(DIRECTORY "${_yuzu_root}/deploy/prometheus" "${_yuzu_root}/deploy/grafana"
          DESTINATION ${CMAKE_INSTALL_DATADIR}/yuzu OPTIONAL)

  unset(_yuzu_root)
  unset(_yuzu_units)
  unset(_yuzu_env_files)
else()
  # ---- install time (from cmake_install.cmake, or cmake -P for a check) --
  # In: YUZU_UNIT_SOURCES, YUZU_UNIT_STAGE_DIR, YUZU_UNIT_BINDIR,
  # YUZU_UNIT_DOCDIR, YUZU_UNIT_DESTINATION, CMAKE_INSTALL_PREFIX.
  foreach(_var YUZU_UNIT_STAGE_DIR YUZU_UNIT_BINDIR YUZU_UNIT_DOCDIR YUZU_UNIT_DESTINATION
               CMAKE_INSTALL_PREFIX)
    if(NOT DEFINED ${_var} OR "${${_var}}" STREQUAL "")
      message(FATAL_ERROR "YuzuInstall.cmake: ${_var} is not set")
    endif()
  endforeach()
  # Absolute forms of the directories, as GNUInstallDirs' FULL_ variables
  # would be for the prefix in effect now.
  foreach(_dir BINDIR DOCDIR DESTINATION)
    if(IS_ABSOLUTE "${YUZU_UNIT_${_dir}}")
      set(_yuzu_full_${_dir} "${YUZU_UNIT_${_dir}}")
    else()
      set(_yuzu_full_${_dir} "${CMAKE_INSTALL_PREFIX}/${YUZU_UNIT_${_dir}}")
    endif()
  endforeach()

  set(_yuzu_staged "")
  foreach(_unit IN LISTS YUZU_UNIT_SOURCES)
    file(READ "${_unit}" _text)
    string(REPLACE "/usr/local/bin/" "${_yuzu_full_BINDIR}/" _text "${_text}")
    string(REPLACE "/usr/local/share/doc/yuzu/" "${_yuzu_full_DOCDIR}/" _text "${_text}")
    get_filename_component(_name "${_unit}" NAME)
    file(WRITE "${YUZU_UNIT_STAGE_DIR}/${_name}" "${_text}")
    list(APPEND _yuzu_staged "${YUZU_UNIT_STAGE_DIR}/${_name}")
  endforeach()
  if(_yuzu_staged)
    file(INSTALL DESTINATION "${_yuzu_full_DESTINATION}" TYPE FILE
         PERMISSIONS OWNER_READ OWNER_WRITE GROUP_READ WORLD_READ
         FILES ${_yuzu_staged})
  endif()
endif()
