-- Lua's own features, each checked: the interpreter (built from lua-src's Lua 5.4 sources,
-- unchanged, into a pexe) must print what the same sources built natively print, and no
-- check may fail.
local failures = 0
local function check(name, cond)
  if not cond then
    failures = failures + 1
    print("FAILED: " .. name)
  end
end

-- Numbers: integers (64-bit), floats, conversions, integer division and modulo.
check("int max", math.maxinteger == 9223372036854775807)
check("wraparound", math.maxinteger + 1 == math.mininteger)
check("floor div", 7 // 2 == 3 and -7 // 2 == -4 and 7.0 // 2 == 3.0)
check("mod", -7 % 3 == 2 and 7 % -3 == -2 and 5.5 % 2 == 1.5)
check("shift", (1 << 62) >> 61 == 2 and (-1 >> 63) == 1 and ~0 == -1)
check("float", 0.1 + 0.2 ~= 0.3 and math.abs(0.1 + 0.2 - 0.3) < 1e-15)
check("tointeger", math.tointeger(3.0) == 3 and math.tointeger(3.5) == nil)
check("huge", math.huge > 1e308 and -math.huge < -1e308 and (0/0) ~= (0/0))
print(string.format("%d %5.2f %g %x %q %s", 42, math.pi, 1e100, 255, "a\nb", 1/3))
print(string.format("%.14g %.14g %.14g %.14g", math.sin(1), math.exp(2), math.log(10), math.sqrt(2)))
print(math.floor(-3.5), math.ceil(-3.5), math.fmod(7, 3), math.ult(1, -1), 2^53 + 1)
print(tostring(1e15), tostring(2^63), tostring(-0.0), 10 // 3.0, 3 / 0, -3 % math.huge)

-- Strings: patterns, gsub, byte/char, rep, format, utf8.
local s = "The quick brown fox jumps over the lazy dog"
check("find", s:find("quick") == 5)
check("match", s:match("(%a+) fox") == "brown")
local words = {}
for w in s:gmatch("%a+") do words[#words + 1] = w:lower() end
check("gmatch", #words == 9 and words[9] == "dog")
print((s:gsub("%w+", function(w) return w:sub(1, 1):upper() .. w:sub(2) end)))
print(("x"):rep(5, "-"), s:reverse():sub(1, 10), ("%d items"):format(3), s:len())
check("byte", string.char(72, 105) == "Hi" and ("A"):byte() == 65)
check("utf8", utf8.len("h\u{e9}llo\u{1F600}") == 6 and utf8.char(233, 8364) == "\u{e9}\u{20ac}")
local codes = {}
for _, c in utf8.codes("\u{3b1}\u{3b2}\u{3b3}") do codes[#codes + 1] = c end
check("utf8 codes", codes[1] == 945 and codes[3] == 947)
print(string.pack and #string.pack("i4i8d", 1, 2, 3.0), string.unpack("<i2", "\1\2"))

-- Tables: constructors, length, sort, concat, insert/remove, next, pairs order of arrays.
local t = {}
for i = 1, 1000 do t[i] = (i * 7919) % 1000 end
table.sort(t)
check("sort", t[1] == 0 and t[1000] == 999)
table.sort(t, function(a, b) return a > b end)
check("sort desc", t[1] == 999)
local parts = {}
for i = 1, 10 do table.insert(parts, i * i) end
table.remove(parts, 1)
print(table.concat(parts, ","), #parts, select("#", table.unpack(parts)))
local big = {}
for i = 1, 100000 do big["k" .. i] = i end
local sum = 0
for k, v in pairs(big) do sum = sum + v end
check("hash table", sum == 5000050000)
print(table.concat(table.move({1, 2, 3}, 1, 3, 2, {9}), " "))

-- Functions: closures, varargs, recursion, tail calls, multiple results.
local function counter()
  local n = 0
  return function() n = n + 1; return n end
end
local c1, c2 = counter(), counter()
c1(); c1()
check("closures", c1() == 3 and c2() == 1)
local function va(...) return select("#", ...), ... end
check("varargs", va(1, nil, 3) == 3)
local function fact(n, acc) if n == 0 then return acc end return fact(n - 1, acc * n) end
check("tail calls", fact(20, 1) == 2432902008176640000)
local function fib(n) if n < 2 then return n end return fib(n - 1) + fib(n - 2) end
print("fib", fib(25))

-- Coroutines.
local gen = coroutine.wrap(function()
  for i = 1, 5 do coroutine.yield(i * i) end
  return "done"
end)
local got = {}
for _ = 1, 6 do got[#got + 1] = gen() end
print(table.concat(got, " "))
local co = coroutine.create(function(a, b)
  local c = coroutine.yield(a + b)
  local d, e = coroutine.yield(c * 2)
  return d + e
end)
print(coroutine.resume(co, 1, 2))
print(coroutine.resume(co, 10))
print(coroutine.resume(co, 3, 4))
print(coroutine.resume(co), coroutine.status(co))

-- Metatables: arithmetic, index, newindex, call, tostring, comparison, __close, __gc.
local V = {}
V.__index = V
V.__add = function(a, b) return setmetatable({x = a.x + b.x, y = a.y + b.y}, V) end
V.__eq = function(a, b) return a.x == b.x and a.y == b.y end
V.__lt = function(a, b) return a.x < b.x end
V.__tostring = function(v) return "(" .. v.x .. "," .. v.y .. ")" end
V.__call = function(v, k) return v.x * k end
local function vec(x, y) return setmetatable({x = x, y = y}, V) end
local v = vec(1, 2) + vec(3, 4)
print(tostring(v), v == vec(4, 6), vec(1, 0) < vec(2, 0), v(10))
local log = {}
local proxy = setmetatable({}, {__index = function(_, k) return k .. "!" end,
                                __newindex = function(_, k, val) log[#log + 1] = k .. "=" .. tostring(val) end})
proxy.a = 1
proxy.b = 2
print(proxy.zzz, table.concat(log, " "))
do
  local closed = {}
  do
    local a <close> = setmetatable({}, {__close = function() closed[#closed + 1] = "a" end})
    local b <close> = setmetatable({}, {__close = function() closed[#closed + 1] = "b" end})
  end
  check("to-be-closed", closed[1] == "b" and closed[2] == "a")
end
local gced = 0
for _ = 1, 100 do setmetatable({}, {__gc = function() gced = gced + 1 end}) end
collectgarbage()
collectgarbage()
check("__gc", gced == 100)

-- Errors: pcall, error objects, xpcall with traceback, assert, error positions.
local ok, err = pcall(function() error({code = 42}) end)
check("error object", not ok and err.code == 42)
ok, err = pcall(function() local x = nil; return x.y end)
print(ok, (err:gsub("^.-:%d+: ", "")))
print(xpcall(function() error("boom") end, function(m) return "handled: " .. m:gsub("^.-:%d+: ", "") end))
print(select(2, pcall(error)))
print(pcall(string.rep))

-- load, string.dump, goto, integer for loops with steps.
local f = load("local a, b = ... return a * b + 1")
check("load", f(6, 7) == 43)
local g = load(string.dump(function(x) return x .. "!" end))
check("dump", g("hey") == "hey!")
local n = 0
for i = 10, 1, -3 do n = n * 10 + i end
check("for step", n == 10741)
do
  local i = 1
  ::top::
  if i < 5 then i = i + 1; goto top end
  check("goto", i == 5)
end
print(math.type(1), math.type(1.0), math.type("1"), 1 == 1.0, "10" + 5, 10 .. 20)

-- os and io, what a sandboxed program has.
check("clock", type(os.clock()) == "number")
check("time", os.time() > 1600000000)
print(os.date("!%Y-%m-%d %H:%M:%S", 86400 * 365), os.time({year = 2000, month = 1, day = 1, hour = 12}))
io.write("io.write ", 1, " ", 2.5, "\n")

-- A heavier computation: the sieve and a string builder.
local sieve, primes = {}, 0
for i = 2, 200000 do
  if not sieve[i] then
    primes = primes + 1
    for j = i * i, 200000, i do sieve[j] = true end
  end
end
print("primes", primes)
local buf = {}
for i = 1, 20000 do buf[#buf + 1] = string.format("%05d", i) end
print(#table.concat(buf), collectgarbage("count") > 0)

print(failures == 0 and "all checks passed" or (failures .. " checks failed"))
os.exit(failures == 0 and 0 or 1)
