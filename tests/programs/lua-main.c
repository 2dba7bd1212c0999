/* A minimal Lua interpreter around the Lua library (lua-src ships the library, not lua.c):
   runs the script named by its first argument with the standard libraries, the rest of
   the arguments in `arg`; an error is printed with its traceback, status 1. */
#include <stdio.h>
#include <stdlib.h>

#include "lauxlib.h"
#include "lua.h"
#include "lualib.h"

static int traceback(lua_State *L) {
  luaL_traceback(L, L, lua_tostring(L, 1), 1);
  return 1;
}

int main(int argc, char **argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: %s SCRIPT [ARGS]\n", argv[0]);
    return 2;
  }
  lua_State *L = luaL_newstate();
  luaL_openlibs(L);
  lua_createtable(L, argc, 0);
  for (int i = 0; i < argc; i++) {
    lua_pushstring(L, argv[i]);
    lua_rawseti(L, -2, i - 1);
  }
  lua_setglobal(L, "arg");
  lua_pushcfunction(L, traceback);
  if (luaL_loadfile(L, argv[1]) != LUA_OK) {
    fprintf(stderr, "%s\n", lua_tostring(L, -1));
    return 1;
  }
  if (lua_pcall(L, 0, 0, 1) != LUA_OK) {
    fprintf(stderr, "%s\n", lua_tostring(L, -1));
    return 1;
  }
  lua_close(L);
  return 0;
}
