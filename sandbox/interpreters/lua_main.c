/* The Lua 5.4 entry point the sandbox runs: `lua PROGRAM [ARGS]`, like the standalone `lua`
   for a script file (errors as `lua: MESSAGE` plus a traceback on stderr, exit status 1). */
#include <stdio.h>
#include <stdlib.h>
#include "lua.h"
#include "lauxlib.h"
#include "lualib.h"

static int traceback(lua_State *L) {
  const char *msg = lua_tostring(L, 1);
  if (msg == NULL) {
    if (luaL_callmeta(L, 1, "__tostring") && lua_type(L, -1) == LUA_TSTRING)
      return 1;
    msg = lua_pushfstring(L, "(error object is a %s value)", luaL_typename(L, 1));
  }
  luaL_traceback(L, L, msg, 1);
  return 1;
}

int main(int argc, char **argv) {
  if (argc < 2) {
    fputs("usage: lua PROGRAM [ARGS]\n", stderr);
    return 2;
  }
  lua_State *L = luaL_newstate();
  if (L == NULL) {
    fputs("lua: cannot create state: not enough memory\n", stderr);
    return 1;
  }
  luaL_openlibs(L);
  lua_createtable(L, argc, 1);
  for (int i = 0; i < argc; i++) {
    lua_pushstring(L, argv[i]);
    lua_rawseti(L, -2, i - 1);
  }
  lua_setglobal(L, "arg");
  lua_pushcfunction(L, traceback);
  int status = luaL_loadfile(L, argv[1]);
  if (status == LUA_OK)
    status = lua_pcall(L, 0, 0, -2);
  if (status != LUA_OK) {
    const char *msg = lua_tostring(L, -1);
    fprintf(stderr, "lua: %s\n", msg ? msg : "(error object is not a string)");
    fflush(stdout);
    return 1;
  }
  fflush(stdout);
  return 0;
}
