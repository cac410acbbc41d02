// cu2cxx: inline PTX in device code translated into C++ (contract: inline_ptx.h; semantics: the
// PTX ISA, each instruction as device_sim's PTX executor runs it).
#include "inline_ptx.h"

#include <cctype>
#include <map>
#include <stdexcept>
#include <optional>
#include <string>

namespace minicuda::cu2cxx {
namespace {

struct Var {
  std::string name;  // the C++ local
  std::string type;  // its C++ type: uint32_t, int64_t, float, bool, ...
};

bool is_float(std::string_view t) { return t == "float" || t == "double"; }
int size_of(std::string_view t) {
  if (t == "bool") return 0;
  if (t == "uint8_t" || t == "int8_t") return 1;
  if (t == "uint16_t" || t == "int16_t") return 2;
  if (t == "uint32_t" || t == "int32_t" || t == "float") return 4;
  return 8;
}
std::string unsigned_of(std::string_view t) {
  return t.starts_with("int") ? "u" + std::string(t) : std::string(t);
}

// The C++ type of a PTX type suffix ("u32" -> uint32_t), or "" when it is none.
std::string cxx_type(std::string_view s) {
  static const std::map<std::string_view, std::string_view> kTypes = {
      {"u8", "uint8_t"},   {"u16", "uint16_t"}, {"u32", "uint32_t"}, {"u64", "uint64_t"}, {"s8", "int8_t"},
      {"s16", "int16_t"},  {"s32", "int32_t"},  {"s64", "int64_t"},  {"b8", "uint8_t"},   {"b16", "uint16_t"},
      {"b32", "uint32_t"}, {"b64", "uint64_t"}, {"f32", "float"},    {"f64", "double"},   {"pred", "bool"}};
  const auto it = kTypes.find(s);
  return it == kTypes.end() ? std::string() : std::string(it->second);
}

std::string trim(std::string_view s) {
  const std::size_t b = s.find_first_not_of(" \t\r\n");
  if (b == std::string_view::npos) return {};
  return std::string(s.substr(b, s.find_last_not_of(" \t\r\n") - b + 1));
}

// Splits at top-level commas (not inside [] or {}).
std::vector<std::string> split_operands(std::string_view s) {
  std::vector<std::string> out;
  int depth = 0;
  std::size_t start = 0;
  for (std::size_t i = 0; i <= s.size(); ++i) {
    if (i < s.size() && (s[i] == '[' || s[i] == '{')) ++depth;
    if (i < s.size() && (s[i] == ']' || s[i] == '}')) --depth;
    if (i == s.size() || (s[i] == ',' && depth == 0)) {
      if (std::string t = trim(s.substr(start, i - start)); !t.empty()) out.push_back(t);
      start = i + 1;
    }
  }
  return out;
}

struct Unsupported {
  std::string what;  // the message's tail
};

// Translates the instructions of one template, on the bound operands.
class Template {
 public:
  explicit Template(std::map<std::string, Var> regs) : regs_(std::move(regs)) {}

  std::string translate(std::string_view text) {
    std::string out, statement;
    int depth = 0;
    for (std::size_t i = 0; i < text.size(); ++i) {
      const char c = text[i];
      if (c == '/' && i + 1 < text.size() && text[i + 1] == '/') {  // a comment, to the end of the line
        while (i < text.size() && text[i] != '\n') ++i;
        continue;
      }
      // A brace at a statement's start opens or closes a scope; inside one it is a vector operand.
      if (c == ';' || ((c == '{' || c == '}') && depth == 0 && (c == '}' || trim(statement).empty()))) {
        out += statement_code(trim(statement));
        statement.clear();
        if (c != ';') out += c == '{' ? "{ " : "} ";
        continue;
      }
      if (c == '{') ++depth;
      if (c == '}') --depth;
      statement += c;
    }
    if (!trim(statement).empty()) out += statement_code(trim(statement));
    return out;
  }
  bool uses_carry() const { return carry_; }

 private:
  [[noreturn]] static void unsupported(const std::string& statement) { throw Unsupported{"'" + statement + "'"}; }

  std::string statement_code(const std::string& s) {
    if (s.empty()) return {};
    if (s.starts_with(".reg")) return declare(s);
    std::string rest = s, guard;
    if (rest.starts_with("@")) {
      const std::size_t space = rest.find_first_of(" \t");
      if (space == std::string::npos) unsupported(s);
      guard = read(rest.substr(1, space - 1), "bool", s);
      rest = trim(rest.substr(space));
    }
    const std::size_t space = rest.find_first_of(" \t");
    const std::string opcode = rest.substr(0, space);
    const std::vector<std::string> ops = space == std::string::npos ? std::vector<std::string>{} : split_operands(rest.substr(space));
    std::vector<std::string> parts;
    for (std::size_t b = 0, e; b <= opcode.size(); b = e + 1) {
      e = opcode.find('.', b);
      if (e == std::string::npos) e = opcode.size();
      parts.push_back(opcode.substr(b, e - b));
    }
    current_ = s;
    const std::string code = instruction(parts, ops);
    return guard.empty() ? code + " " : "if (" + guard + ") { " + code + " } ";
  }

  // `.reg .TYPE a, b, r<4>;` -> locals, zero-initialised.
  std::string declare(const std::string& s) {
    const std::size_t dot = s.find('.', 4);
    if (dot == std::string::npos) unsupported(s);
    const std::size_t end = s.find_first_of(" \t", dot);
    if (end == std::string::npos) unsupported(s);
    const std::string type = cxx_type(s.substr(dot + 1, end - dot - 1));
    if (type.empty()) unsupported(s);
    std::string out;
    for (std::string name : split_operands(s.substr(end))) {
      int count = -1;
      if (const std::size_t lt = name.find('<'); lt != std::string::npos) {
        count = std::stoi(name.substr(lt + 1));
        name = name.substr(0, lt);
      }
      for (int k = count < 0 ? -1 : 0; k < (count < 0 ? 0 : count); ++k) {
        const std::string ptx = k < 0 ? name : name + std::to_string(k);
        std::string cxx = "mc_asm_r_";
        for (const char c : ptx) cxx += std::isalnum(static_cast<unsigned char>(c)) || c == '_' ? std::string(1, c) : (c == '%' ? "P_" : "D_");
        regs_[ptx] = Var{cxx, type};
        out += type + " " + cxx + " = 0; ";
      }
    }
    return out;
  }

  // The value of operand `op` as the instruction's type `t`.
  std::string read(const std::string& op, const std::string& t, const std::string& s) {
    if (op.starts_with("!") && t == "bool") return "!" + read(op.substr(1), t, s);
    if (const auto it = regs_.find(op); it != regs_.end()) return convert(it->second.name, it->second.type, t, s);
    if (const std::optional<std::string> special = special_register(op)) return convert(*special, op.find("64") != std::string::npos ? "uint64_t" : "uint32_t", t, s);
    if (op.empty()) unsupported(s);
    std::string lit = op;
    const bool negative = lit.starts_with("-");
    if (negative) lit = lit.substr(1);
    if ((lit.starts_with("0f") || lit.starts_with("0F")) && lit.size() == 10)
      return convert("__builtin_bit_cast(float, uint32_t(0x" + lit.substr(2) + "u))", "float", t, s);
    if ((lit.starts_with("0d") || lit.starts_with("0D")) && lit.size() == 18)
      return convert("__builtin_bit_cast(double, uint64_t(0x" + lit.substr(2) + "ull))", "double", t, s);
    if (!std::isdigit(static_cast<unsigned char>(lit[0]))) unsupported(s);
    for (const char c : lit)
      if (!std::isxdigit(static_cast<unsigned char>(c)) && c != 'x' && c != 'X' && c != '.' && c != 'U') unsupported(s);
    if (lit.find('.') != std::string::npos) return "static_cast<" + t + ">(" + op + ")";
    if (lit.ends_with("U")) lit.pop_back();
    return "static_cast<" + t + ">(" + std::string(negative ? "-" : "") + lit + "ull)";
  }

  std::string convert(const std::string& expr, const std::string& from, const std::string& to, const std::string& s) {
    if (from == to) return expr;
    if (is_float(from) != is_float(to)) {
      if (size_of(from) != size_of(to)) unsupported(s);
      return "__builtin_bit_cast(" + to + ", " + expr + ")";
    }
    return "static_cast<" + to + ">(" + expr + ")";
  }

  // `op = value` where value has the instruction's type `t`; `_` discards.
  std::string write(const std::string& op, const std::string& t, const std::string& value) {
    if (op == "_") return "(void)(" + value + ");";
    const auto it = regs_.find(op);
    if (it == regs_.end()) unsupported(current_);
    return it->second.name + " = " + convert("static_cast<" + t + ">(" + value + ")", t, it->second.type, current_) + ";";
  }

  static std::optional<std::string> special_register(const std::string& op) {
    static const std::map<std::string, std::string> kSpecial = {
        {"%laneid", "::minicuda::inline_ptx::laneid()"},
        {"%warpid", "::minicuda::inline_ptx::warpid()"},
        {"%tid.x", "threadIdx.x"},  {"%tid.y", "threadIdx.y"},  {"%tid.z", "threadIdx.z"},
        {"%ntid.x", "blockDim.x"},  {"%ntid.y", "blockDim.y"},  {"%ntid.z", "blockDim.z"},
        {"%ctaid.x", "blockIdx.x"}, {"%ctaid.y", "blockIdx.y"}, {"%ctaid.z", "blockIdx.z"},
        {"%nctaid.x", "gridDim.x"}, {"%nctaid.y", "gridDim.y"}, {"%nctaid.z", "gridDim.z"},
        {"%lanemask_eq", "::minicuda::inline_ptx::lanemask(0)"}, {"%lanemask_lt", "::minicuda::inline_ptx::lanemask(1)"},
        {"%lanemask_le", "::minicuda::inline_ptx::lanemask(2)"}, {"%lanemask_gt", "::minicuda::inline_ptx::lanemask(3)"},
        {"%lanemask_ge", "::minicuda::inline_ptx::lanemask(4)"},
        {"%clock", "static_cast<uint32_t>(::clock64())"},       {"%clock64", "static_cast<uint64_t>(::clock64())"},
        {"%globaltimer", "::minicuda::inline_ptx::globaltimer()"},
        {"%globaltimer_lo", "static_cast<uint32_t>(::minicuda::inline_ptx::globaltimer())"},
        {"%globaltimer_hi", "static_cast<uint32_t>(::minicuda::inline_ptx::globaltimer() >> 32)"}};
    const auto it = kSpecial.find(op);
    return it == kSpecial.end() ? std::nullopt : std::optional<std::string>(it->second);
  }

  std::string instruction(const std::vector<std::string>& p, const std::vector<std::string>& ops);
  std::string setp(const std::vector<std::string>& p, const std::vector<std::string>& o, const std::string& t);
  std::string shuffle(const std::vector<std::string>& p, const std::vector<std::string>& o);
  std::string memory(const std::vector<std::string>& p, const std::vector<std::string>& o, const std::string& t);

  std::map<std::string, Var> regs_;
  std::string current_;
  bool carry_ = false;

};

std::string Template::instruction(const std::vector<std::string>& p, const std::vector<std::string>& o) {
  const std::string& s = current_;
  const std::string& op = p[0];
  auto has = [&](std::string_view m) {
    for (std::size_t k = 1; k < p.size(); ++k)
      if (p[k] == m) return true;
    return false;
  };
  auto need = [&](std::size_t n) {
    if (o.size() != n) unsupported(s);
  };
  // The instruction's type: its last part that is a PTX type.
  std::string t;
  for (std::size_t k = p.size(); k-- > 1 && t.empty();) t = cxx_type(p[k]);
  auto r = [&](std::size_t k, const std::string& type) { return read(o[k], type, s); };
  const std::string helper = "::minicuda::inline_ptx::";
  const bool integer = !t.empty() && !is_float(t) && t != "bool";
  const std::string u = unsigned_of(t);
  if (op == "mov" && !t.empty()) { need(2); return write(o[0], t, r(1, t)); }
  if ((op == "add" || op == "sub" || op == "addc" || op == "subc") && integer && !has("sat")) {
    need(3);
    const bool sub = op[0] == 's';
    const bool cin = op.ends_with("c"), cout = has("cc");
    if (!cin && !cout) return write(o[0], t, "static_cast<" + u + ">(" + r(1, u) + (sub ? " - " : " + ") + r(2, u) + ")");
    if (size_of(t) < 4) unsupported(s);
    carry_ = true;
    const std::string wide = "static_cast<unsigned __int128>";
    std::string code = "{ const unsigned __int128 mc_asm_w = " + wide + "(" + r(1, u) + ")" + (sub ? " - " : " + ") + wide + "(" +
                       r(2, u) + ")" + (cin ? std::string(sub ? " - " : " + ") + "mc_asm_cc" : "") + "; ";
    code += write(o[0], t, "mc_asm_w");
    if (cout) code += " mc_asm_cc = static_cast<uint32_t>(mc_asm_w >> " + std::to_string(size_of(t) * 8) + ") & 1u;";
    return code + " }";
  }
  if ((op == "add" || op == "sub" || op == "mul") && is_float(t) && !has("sat") && !has("ftz")) {
    need(3);
    return write(o[0], t, r(1, t) + (op == "add" ? " + " : op == "sub" ? " - " : " * ") + r(2, t));
  }
  if ((op == "mul" || op == "mad") && integer) {
    const bool mad = op == "mad";
    need(mad ? 4 : 3);
    if (has("lo")) {
      std::string v = "static_cast<" + u + ">(" + r(1, u) + " * " + r(2, u) + ")";
      if (mad) v = "static_cast<" + u + ">(" + v + " + " + r(3, u) + ")";
      return write(o[0], t, v);
    }
    if (has("hi")) {
      std::string v = helper + "mul_hi<" + t + ">(" + r(1, t) + ", " + r(2, t) + ")";
      if (mad) v = "static_cast<" + u + ">(static_cast<" + u + ">(" + v + ") + " + r(3, u) + ")";
      return write(o[0], t, v);
    }
    if (has("wide") && size_of(t) <= 4) {
      const std::string w = (t[0] == 'i' ? "int" : "uint") + std::to_string(size_of(t) * 16) + "_t";
      std::string v = "static_cast<" + w + ">(static_cast<" + w + ">(" + r(1, t) + ") * static_cast<" + w + ">(" + r(2, t) + "))";
      if (mad) v = "static_cast<" + unsigned_of(w) + ">(static_cast<" + unsigned_of(w) + ">(" + v + ") + " + r(3, unsigned_of(w)) + ")";
      return write(o[0], w, v);
    }
    unsupported(s);
  }
  if ((op == "min" || op == "max") && integer) {
    need(3);
    return write(o[0], t, "(" + r(1, t) + (op == "min" ? " < " : " > ") + r(2, t) + " ? " + r(1, t) + " : " + r(2, t) + ")");
  }
  if ((op == "and" || op == "or" || op == "xor") && (integer || t == "bool")) {
    need(3);
    return write(o[0], t, r(1, t) + (op == "and" ? " & " : op == "or" ? " | " : " ^ ") + r(2, t));
  }
  if (op == "not" && (integer || t == "bool")) { need(2); return write(o[0], t, (t == "bool" ? "!" : "~") + r(1, t)); }
  if (op == "cnot" && integer) { need(2); return write(o[0], t, "(" + r(1, t) + " == 0 ? 1 : 0)"); }
  if (op == "neg" && integer) { need(2); return write(o[0], t, "static_cast<" + u + ">(0u - static_cast<" + u + ">(" + r(1, t) + "))"); }
  if ((op == "shl" || op == "shr") && integer) {
    need(3);
    return write(o[0], t, helper + op + "<" + t + ">(" + r(1, t) + ", " + r(2, "uint32_t") + ")");
  }
  if (op == "bfe" && integer && size_of(t) >= 4) {
    need(4);
    return write(o[0], t, helper + "bfe<" + t + ">(" + r(1, t) + ", " + r(2, "uint32_t") + ", " + r(3, "uint32_t") + ")");
  }
  if (op == "bfi" && integer && size_of(t) >= 4) {
    need(5);
    return write(o[0], t, helper + "bfi<" + t + ">(" + r(1, t) + ", " + r(2, t) + ", " + r(3, "uint32_t") + ", " + r(4, "uint32_t") + ")");
  }
  if (op == "prmt" && p.size() == 2 && t == "uint32_t") {
    need(4);
    return write(o[0], t, helper + "prmt(" + r(1, t) + ", " + r(2, t) + ", " + r(3, t) + ")");
  }
  if (op == "lop3" && p.size() == 2 && t == "uint32_t") {
    need(5);
    return write(o[0], t, helper + "lop3(" + r(1, t) + ", " + r(2, t) + ", " + r(3, t) + ", " + r(4, t) + ")");
  }
  if (op == "brev" && integer && size_of(t) >= 4) { need(2); return write(o[0], t, helper + "brev<" + t + ">(" + r(1, t) + ")"); }
  if ((op == "popc" || op == "clz") && integer && size_of(t) >= 4) {
    need(2);
    return write(o[0], "uint32_t", helper + op + "<" + t + ">(" + r(1, t) + ")");
  }
  if (op == "selp" && !t.empty()) { need(4); return write(o[0], t, "(" + r(3, "bool") + " ? " + r(1, t) + " : " + r(2, t) + ")"); }
  if (op == "setp" && p.size() >= 3 && !t.empty() && t != "bool") return setp(p, o, t);
  if (op == "cvt" && p.size() == 3) {  // integer to integer, float to wider float: exact
    need(2);
    const std::string d = cxx_type(p[1]), a = cxx_type(p[2]);
    if (d.empty() || a.empty() || d == "bool" || a == "bool" || (is_float(d) != is_float(a)) || (size_of(d) < size_of(a) && is_float(d)))
      unsupported(s);
    return write(o[0], d, "static_cast<" + d + ">(" + r(1, a) + ")");
  }
  if (op == "shfl" && has("sync") && t == "uint32_t") return shuffle(p, o);
  if (op == "vote" && has("sync")) {
    need(3);
    const std::string v = "(" + r(1, "bool") + " ? 1 : 0)", m = r(2, "uint32_t");
    if (has("ballot") && t == "uint32_t") return write(o[0], t, "__ballot_sync(" + m + ", " + v + ")");
    if (has("any") && t == "bool") return write(o[0], t, "__any_sync(" + m + ", " + v + ") != 0");
    if (has("all") && t == "bool") return write(o[0], t, "__all_sync(" + m + ", " + v + ") != 0");
    unsupported(s);
  }
  if (op == "activemask" && t == "uint32_t") { need(1); return write(o[0], t, "__activemask()"); }
  if ((op == "bar" || op == "barrier") && has("sync") && o.size() == 1 && o[0] == "0") return "__syncthreads();";
  if (op == "bar" && p.size() == 3 && p[1] == "warp" && p[2] == "sync") { need(1); return "__syncwarp(" + r(0, "uint32_t") + ");"; }
  if (op == "membar" && p.size() == 2) {
    if (p[1] == "cta") return "__threadfence_block();";
    if (p[1] == "gl") return "__threadfence();";
    if (p[1] == "sys") return "__threadfence_system();";
  }
  if ((op == "ld" || op == "st") && !t.empty() && t != "bool") return memory(p, o, t);
  unsupported(s);
}

std::string Template::setp(const std::vector<std::string>& p, const std::vector<std::string>& o, const std::string& t) {
  const std::string& s = current_;
  const std::string cmp = p[1];
  if (p.size() > 4) unsupported(s);
  std::string bop = p.size() == 3 ? "" : p[2];
  if (!bop.empty() && bop != "and" && bop != "or" && bop != "xor") unsupported(s);
  if (o.size() != (bop.empty() ? 3u : 4u)) unsupported(s);
  const std::string a = read(o[1], t, s), b = read(o[2], t, s);
  static const std::map<std::string, std::string> kOps = {{"eq", "=="}, {"lt", "<"}, {"le", "<="}, {"gt", ">"}, {"ge", ">="},
                                                          {"lo", "<"},  {"ls", "<="}, {"hi", ">"},  {"hs", ">="}};
  std::string v;
  const bool unordered = cmp.size() == 3 && cmp.back() == 'u' && is_float(t);
  const std::string base = unordered ? cmp.substr(0, 2) : cmp;
  if (base == "ne") v = is_float(t) ? "(" + a + " < " + b + " || " + a + " > " + b + ")" : "(" + a + " != " + b + ")";
  else if (kOps.contains(base) && (is_float(t) ? base[1] != 'o' && base[1] != 's' && base != "hi" && base != "hs" : true)) v = "(" + a + " " + kOps.at(base) + " " + b + ")";
  else if (cmp == "num" && is_float(t)) v = "(" + a + " == " + a + " && " + b + " == " + b + ")";
  else if (cmp == "nan" && is_float(t)) v = "(" + a + " != " + a + " || " + b + " != " + b + ")";
  else unsupported(s);
  if (unordered) v = "(" + v + " || " + a + " != " + a + " || " + b + " != " + b + ")";
  const std::string c = bop.empty() ? "" : read(o[3], "bool", s);
  const std::string op = bop == "and" ? " && " : bop == "or" ? " || " : " != ";
  std::string d = o[0], q;
  if (const std::size_t bar = d.find('|'); bar != std::string::npos) {
    q = trim(d.substr(bar + 1));
    d = trim(d.substr(0, bar));
  }
  std::string code = "{ const bool mc_asm_t = " + v + "; ";
  code += write(d, "bool", bop.empty() ? "mc_asm_t" : "(mc_asm_t" + op + c + ")");
  if (!q.empty()) code += " " + write(q, "bool", bop.empty() ? "!mc_asm_t" : "(!mc_asm_t" + op + c + ")");
  return code + " }";
}

// shfl.sync.MODE.b32 d, a, b, c, membermask: c must be the immediate nvcc's __shfl_*_sync give
// ((32 - width) << 8, with clamp 31, or 0 for up): the intrinsic with that width.
std::string Template::shuffle(const std::vector<std::string>& p, const std::vector<std::string>& o) {
  const std::string& s = current_;
  if (o.size() != 5 || o[0].find('|') != std::string::npos || p.size() != 4) unsupported(s);
  const std::string& mode = p[2];
  unsigned long c = 0;
  try {
    std::size_t used = 0;
    c = std::stoul(o[3], &used, 0);
    if (used != o[3].size()) unsupported(s);
  } catch (const std::logic_error&) {
    unsupported(s);
  }
  const unsigned width = 32 - ((c >> 8) & 31u), clamp = c & 31u;
  if ((width & (width - 1)) != 0 || (c & ~0x1f1fu) != 0 || clamp != (mode == "up" ? 0u : 31u)) unsupported(s);
  static const std::map<std::string, std::string> kCalls = {
      {"idx", "__shfl_sync"}, {"up", "__shfl_up_sync"}, {"down", "__shfl_down_sync"}, {"bfly", "__shfl_xor_sync"}};
  if (!kCalls.contains(mode)) unsupported(s);
  const std::string lane = mode == "up" || mode == "down" ? read(o[2], "uint32_t", s) : read(o[2], "int32_t", s);
  return write(o[0], "uint32_t", kCalls.at(mode) + "(" + read(o[4], "uint32_t", s) + ", " + read(o[1], "uint32_t", s) + ", " + lane +
                                      ", " + std::to_string(width) + ")");
}

// ld/st of the generic or global state space: a plain pointer (the simulator's global memory is
// the host's address space, shared by generic addressing).
std::string Template::memory(const std::vector<std::string>& p, const std::vector<std::string>& o, const std::string& t) {
  const std::string& s = current_;
  bool is_volatile = false;
  for (std::size_t k = 1; k + 1 < p.size(); ++k) {
    if (p[k] == "volatile") is_volatile = true;
    else if (p[k] != "global" && p[k] != "weak" && p[k] != "ca" && p[k] != "cg" && p[k] != "cs" && p[k] != "wb" && p[k] != "wt") unsupported(s);
  }
  if (o.size() != 2) unsupported(s);
  const bool load = p[0] == "ld";
  const std::string& address = load ? o[1] : o[0];
  if (!address.starts_with("[") || !address.ends_with("]")) unsupported(s);
  std::string inside = trim(address.substr(1, address.size() - 2)), offset = "0";
  if (const std::size_t plus = inside.find('+'); plus != std::string::npos) {
    offset = read(trim(inside.substr(plus + 1)), "int64_t", s);
    inside = trim(inside.substr(0, plus));
  }
  const std::string pointer = "reinterpret_cast<" + std::string(is_volatile ? "volatile " : "") + t + "*>(" +
                              read(inside, "uint64_t", s) + " + static_cast<uint64_t>(" + offset + "))";
  if (load) return write(o[0], t, "*" + pointer);
  return "*" + pointer + " = " + read(o[1], t, s) + ";";
}

// One asm statement: its pieces as written.
struct AsmStatement {
  std::size_t begin = 0, end = 0;  // the `asm` token .. past the `;`
  std::string text;                // the template, string literals joined and unescaped
  std::vector<std::pair<std::string, std::string>> outputs, inputs;  // constraint, expression
  bool memory_clobber = false;
};

// The characters of a string literal token (prefix and quotes removed, escapes resolved).
std::optional<std::string> literal_text(std::string_view token) {
  const std::size_t open = token.find('"');
  if (open == std::string_view::npos || token.size() < open + 2 || open > 0) return std::nullopt;  // prefixed or raw: unread
  std::string out;
  for (std::size_t i = open + 1; i + 1 < token.size(); ++i) {
    if (token[i] != '\\') {
      out += token[i];
      continue;
    }
    const char e = token[++i];
    out += e == 'n' ? '\n' : e == 't' ? '\t' : e == 'r' ? '\r' : e;
  }
  return out;
}

// The C++ type of a constraint letter; "" for one the translator does not take.
std::string constraint_type(char c) {
  switch (c) {
    case 'r': return "uint32_t";
    case 'l': return "uint64_t";
    case 'h': return "uint16_t";
    case 'c': return "uint8_t";
    case 'f': return "float";
    case 'd': return "double";
    case 'n': return "int64_t";
    default: return "";
  }
}

struct Operand {
  std::string constraint, expression;
};

constexpr std::string_view kNotAStatement = "an asm that is not a statement";

// Does a constraint name an x86 register or register class (a, b, S, D, A, q, Q, R, U, x, y, t,
// u)? No PTX constraint does: such a statement is assembly for the host CPU.
bool names_host_registers(const std::vector<Operand>& outputs, const std::vector<Operand>& inputs) {
  for (const auto* list : {&outputs, &inputs})
    for (const Operand& o : *list)
      if (o.constraint.find_first_of("abSDAqQRUxytu") != std::string::npos) return true;
  return false;
}

// Reads `asm [volatile] ( "..." : outs : ins : clobbers ) ;` starting at token k. Returns the
// index of the `;`, or nullopt when it is not such a statement (`why` says what is wrong).
std::optional<std::size_t> read_statement(std::string_view source, const Tokens& t, std::size_t k, std::size_t limit,
                                          const std::vector<Edit>& others, std::string& text,
                                          std::vector<Operand>& outputs, std::vector<Operand>& inputs, bool& memory,
                                          std::string& why) {
  std::size_t j = k + 1;
  while (j < limit && (t[j].is_identifier("volatile") || t[j].is_identifier("__volatile__") || t[j].is_identifier("__volatile") ||
                       t[j].is_identifier("inline")))
    ++j;
  if (j < limit && t[j].is_identifier("goto")) return why = "asm goto", std::nullopt;
  if (j >= limit || !t[j].is_punct("(")) return why = "an asm declaration without a parenthesised template", std::nullopt;
  const auto close = matching_close(t, j);
  if (!close || *close + 1 >= limit || !t[*close + 1].is_punct(";")) return why = kNotAStatement, std::nullopt;
  std::size_t i = j + 1;
  for (; i < *close && t[i].kind == TokenKind::Literal; ++i) {
    const auto piece = literal_text(t[i].text);
    if (!piece) return why = "a template that is not a plain string literal", std::nullopt;
    text += *piece;
  }
  if (i == j + 1) return why = "a template that is not a string literal", std::nullopt;
  int section = 0;  // 0 template, 1 outputs, 2 inputs, 3 clobbers
  while (i < *close) {
    if (t[i].is_punct(":")) {
      ++section, ++i;
      continue;
    }
    if (t[i].is_punct("::")) {
      section += 2, ++i;
      continue;
    }
    if (t[i].is_punct(",")) {
      ++i;
      continue;
    }
    if (t[i].kind != TokenKind::Literal || section == 0 || section > 3) return why = "an operand list it cannot read", std::nullopt;
    const auto constraint = literal_text(t[i].text);
    if (!constraint) return why = "an operand list it cannot read", std::nullopt;
    if (section == 3) {
      memory = memory || *constraint == "memory";
      ++i;
      continue;
    }
    if (i + 1 >= *close || !t[i + 1].is_punct("(")) return why = "an operand without a parenthesised expression", std::nullopt;
    const auto end = matching_close(t, i + 1);
    if (!end || *end >= *close || *end == i + 2) return why = "an operand without an expression", std::nullopt;
    const std::string expression = apply_edits(source, t[i + 2].begin, t[*end - 1].end, others);
    (section == 1 ? outputs : inputs).push_back(Operand{*constraint, expression});
    i = *end + 1;
  }
  return *close + 1;
}

// The C++ block that replaces one asm statement; throws Unsupported.
std::string translate_statement(const std::string& text, const std::vector<Operand>& outputs,
                                const std::vector<Operand>& inputs, bool memory) {
  std::map<std::string, Var> regs;
  std::string head = "{ ", init, store;
  std::size_t n = 0;
  for (const Operand& o : outputs) {
    std::string c = o.constraint;
    std::erase(c, '&');
    const bool read_write = c.starts_with("+");
    if (c.size() != 2 || (c[0] != '=' && c[0] != '+') || constraint_type(c[1]).empty() || c[1] == 'n')
      throw Unsupported{"output constraint \"" + o.constraint + "\""};
    const std::string type = constraint_type(c[1]), name = "mc_asm_" + std::to_string(n);
    regs["%" + std::to_string(n++)] = Var{name, type};
    head += type + " " + name + " = " + (read_write ? "(" + type + ")(" + o.expression + ")" : type + "()") + "; ";
    store += "(" + o.expression + ") = (std::remove_reference_t<decltype(" + o.expression + ")>)(" + name + "); ";
  }
  for (const Operand& o : inputs) {
    const std::string& c = o.constraint;
    if (c.size() == 1 && std::isdigit(static_cast<unsigned char>(c[0])) && std::size_t(c[0] - '0') < outputs.size()) {
      const Var tied = regs.at("%" + c);
      regs["%" + std::to_string(n++)] = tied;
      init += tied.name + " = (" + tied.type + ")(" + o.expression + "); ";
      continue;
    }
    if (c.size() != 1 || constraint_type(c[0]).empty()) throw Unsupported{"input constraint \"" + c + "\""};
    const std::string type = constraint_type(c[0]), name = "mc_asm_" + std::to_string(n);
    regs["%" + std::to_string(n++)] = Var{name, type};
    head += (c[0] == 'n' ? "const " : "") + type + " " + name + " = (" + type + ")(" + o.expression + "); ";
  }
  // %% is a literal %; %N stays as the operand's name (the map's key); a % before a letter is a
  // PTX register (`mov.u64 %0, %globaltimer;`), which nvcc passes through as it is; %[name] is
  // not taken.
  std::string ptx;
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '%' && i + 1 < text.size() && text[i + 1] == '%') {
      ptx += '%';
      ++i;
    } else if (text[i] == '%' && i + 1 < text.size() && std::isalpha(static_cast<unsigned char>(text[i + 1]))) {
      ptx += '%';
    } else if (text[i] == '%' && i + 1 < text.size() && !std::isdigit(static_cast<unsigned char>(text[i + 1]))) {
      throw Unsupported{"operand reference '%" + std::string(1, text[i + 1]) + "' (only %0..%N and %% are taken)"};
    } else {
      ptx += text[i];
    }
  }
  Template translator(std::move(regs));
  const std::string body = translator.translate(ptx);
  if (translator.uses_carry()) head += "uint32_t mc_asm_cc = 0; ";
  std::string out = head + init + body + store;
  if (memory) out += "__atomic_signal_fence(__ATOMIC_SEQ_CST); ";
  return out + "}";
}

}  // namespace

std::vector<Edit> rewrite_inline_ptx(std::string_view source, const Tokens& tokens, const LineIndex& lines,
                                     std::string_view path, const std::vector<Edit>& others,
                                     std::vector<Diagnostic>& errors, bool& translated) {
  std::vector<Edit> edits;
  const std::vector<bool> in_function = inside_function_bodies(tokens);
  for (std::size_t k = 0; k < tokens.size(); ++k) {
    if (!tokens[k].is_punct("{") || in_function[k] || !opens_function_body(tokens, k)) continue;
    const auto close = matching_close(tokens, k);
    if (!close) continue;
    if (declared_device_only(tokens, k)) {
      for (std::size_t j = k + 1; j < *close; ++j) {
        const Token& a = tokens[j];
        if (!(a.is_identifier("asm") || a.is_identifier("__asm__") || a.is_identifier("__asm"))) continue;
        const int line = lines.line_of(a.begin);
        const std::string where = std::string(path) + ":" + std::to_string(line);
        std::string text, why;
        std::vector<Operand> outputs, inputs;
        bool memory = false;
        const auto semicolon = read_statement(source, tokens, j, *close, others, text, outputs, inputs, memory, why);
        if (!semicolon && why == kNotAStatement) continue;  // `register T r asm("r9") = ...`: a register name
        if (semicolon && names_host_registers(outputs, inputs)) {
          j = *semicolon;  // x86 assembly written for the host CPU on purpose: g++ assembles it
          continue;
        }
        if (!semicolon) {
          errors.push_back(Diagnostic{line, "inline PTX at " + where + " is not supported: " + why});
          continue;
        }
        try {
          const std::string block = translate_statement(text, outputs, inputs, memory);
          edits.push_back(Edit{a.begin, tokens[*semicolon].end,
                               keep_line_count(source.substr(a.begin, tokens[*semicolon].end - a.begin), block)});
          translated = true;
        } catch (const Unsupported& u) {
          const std::string message =
              u.what.starts_with("'") ? "inline PTX instruction " + u.what + " at " + where + " is not supported"
                                      : "inline PTX at " + where + " is not supported: " + u.what;
          errors.push_back(Diagnostic{line, message});
        }
        j = *semicolon;
      }
    }
    k = *close;
  }
  return edits;
}

}  // namespace minicuda::cu2cxx
