// The PTX parser (parser.h): module directives, functions and their bodies, instructions and
// operands. Grammar notes next to each function; the shapes are those nvcc 13 emits.
#include "parser.h"

#include <algorithm>
#include <cstdlib>
#include <map>
#include <utility>

#include "lexer.h"
#include "minicuda/ptx/ptx.h"

namespace minicuda::ptx {

namespace {

using K = Token::Kind;

class Parser {
 public:
  Parser(std::vector<Token> toks, Module& m, std::vector<Diagnostic>& d) : t_(std::move(toks)), m_(m), d_(d) {}

  ParseOutcome module(const std::string& input_name) {
    // ptxas insists on .version first and .target right after it, before it parses anything.
    if (!dir("version")) {
      // ptxas notices after reading the first directive: it names the line of the token after it.
      if (peek().kind == K::Directive) {
        int first = peek().line;
        while (peek().kind != K::End && peek().line == first) next();
      }
      fatal(peek().line, "Missing .version directive at start of file '" + input_name + "'");
      return ParseOutcome::MissingVersion;
    }
    top_level();
    if (failed_) return ParseOutcome::SyntaxError;
    if (m_.version_major > kPtxIsaMajor || (m_.version_major == kPtxIsaMajor && m_.version_minor > kPtxIsaMinor)) {
      fatal(version_line_, "Unsupported .version " + std::to_string(m_.version_major) + "." +
                               std::to_string(m_.version_minor) + "; current version is '" +
                               std::to_string(kPtxIsaMajor) + "." + std::to_string(kPtxIsaMinor) + "'");
      d_.back().last_word = true;
      return ParseOutcome::UnsupportedVersion;
    }
    if (!dir("target")) {
      fatal(peek().line, "Missing .target directive at start of file '" + input_name + "'");
      return ParseOutcome::MissingTarget;
    }
    while (!failed_ && peek().kind != K::End) top_level();
    return failed_ ? ParseOutcome::SyntaxError : ParseOutcome::Ok;
  }

 private:
  const Token& peek(size_t k = 0) const { return t_[std::min(p_ + k, t_.size() - 1)]; }
  const Token& next() { const Token& t = t_[p_]; if (p_ + 1 < t_.size()) ++p_; return t; }
  bool punct(char c, size_t k = 0) const { return peek(k).kind == K::Punct && peek(k).text[0] == c; }
  bool dir(const char* name) const { return peek().kind == K::Directive && peek().text == name; }
  bool accept(char c) { if (punct(c)) { next(); return true; } return false; }

  // ptxas stops at the first syntax error: "line N; fatal   : Parsing error near 'X': syntax error".
  void fatal(int line, std::string msg) {
    failed_ = true;
    d_.push_back({Diagnostic::Severity::Fatal, line, std::move(msg)});
  }
  void syntax_error() {
    if (failed_) return;
    failed_ = true;
    const Token& t = peek();
    std::string near = t.kind == K::Directive ? "." + t.text : t.kind == K::String ? "\"" + t.text + "\"" : t.text;
    d_.push_back({Diagnostic::Severity::Fatal, t.line, "Parsing error near '" + near + "': syntax error"});
  }
  bool expect(char c) { if (accept(c)) return true; syntax_error(); return false; }
  std::string ident() {
    if (peek().kind != K::Ident) { syntax_error(); return {}; }
    return next().text;
  }
  uint64_t integer() {
    bool neg = accept('-');
    if (peek().kind != K::Int) { syntax_error(); return 0; }
    uint64_t v = next().ivalue;
    return neg ? static_cast<uint64_t>(-static_cast<int64_t>(v)) : v;
  }

  void top_level() {
    const Token& t = peek();
    if (t.kind != K::Directive) { syntax_error(); return; }
    std::string d = t.text;
    if (d == "version") {
      next();
      const Token& v = next();
      size_t dot = v.text.find('.');
      if (v.kind != K::Float || dot == std::string::npos) { --p_; syntax_error(); return; }
      m_.version_major = static_cast<int>(std::min(std::strtol(v.text.substr(0, dot).c_str(), nullptr, 10), 100000L));
      m_.version_minor = static_cast<int>(std::min(std::strtol(v.text.substr(dot + 1).c_str(), nullptr, 10), 100000L));
      version_line_ = v.line;
    } else if (d == "target") {
      m_.target_line = next().line;
      m_.target = ident();
      while (accept(',')) ident();
    } else if (d == "address_size") {
      m_.address_size_line = next().line;
      m_.address_size = static_cast<int>(integer());
    } else if (d == "file") {
      next();
      int idx = static_cast<int>(integer());
      if (peek().kind != K::String) { syntax_error(); return; }
      m_.files.emplace_back(idx, next().text);
      while (accept(',')) integer();
    } else if (d == "pragma") {
      next();
      if (peek().kind == K::String) next();
      expect(';');
    } else if (d == "visible" || d == "extern" || d == "weak" || d == "common") {
      next();
      linkage_ = d;
    } else if (d == "entry" || d == "func") {
      next();
      function(d == "entry");
      linkage_.clear();
    } else if (d == "global" || d == "const" || d == "shared" || d == "local") {
      next();
      declarations(d, m_.globals);
      linkage_.clear();
    } else if (d == "section") {
      // DWARF sections (nvcc -G): skipped to their closing brace.
      while (peek().kind != K::End && !punct('{')) next();
      int depth = 0;
      do {
        if (punct('{')) ++depth;
        if (punct('}')) --depth;
        next();
      } while (depth > 0 && peek().kind != K::End);
    } else {
      syntax_error();
    }
  }

  // decl: {.align N | .vN | .ptr | .<space> | .<type>}* name [<N>] {[N]|[]}* [= init] {, name...} ;
  void declarations(const std::string& space, std::vector<VarDecl>& out, bool one = false) {
    VarDecl base;
    base.space = space;
    base.linkage = linkage_;
    base.line = peek().line;
    while (peek().kind == K::Directive) {
      std::string a = next().text;
      if (a == "align") base.align = static_cast<uint32_t>(integer());
      else if (a == "v2" || a == "v4" || a == "v8") base.vector = a[1] - '0';
      else if (a == "ptr") base.ptr = true;
      else if (a == "attribute" && space == "global") {  // .attribute(.managed): a __managed__ variable
        if (!expect('(')) return;
        if (peek().kind != K::Directive || peek().text != "managed") { syntax_error(); return; }
        next();
        if (!expect(')')) return;
        base.managed = true;
      }
      else if (a == "global" || a == "shared" || a == "const" || a == "local") {}
      else if (type_size(a) > 0) base.type = a;
      else { --p_; syntax_error(); return; }
      if (failed_) return;
    }
    if (base.type.empty()) { syntax_error(); return; }
    for (;;) {
      VarDecl v = base;
      v.line = peek().line;
      v.name = ident();
      if (failed_) return;
      if (accept('<')) {
        v.is_range = true;
        v.range = static_cast<uint32_t>(integer());
        if (!expect('>')) return;
      }
      while (accept('[')) {
        v.dims.push_back(punct(']') ? 0 : integer());
        if (!expect(']')) return;
      }
      if (accept('=')) {
        v.has_init = true;
        initializer(v.init);
      }
      out.push_back(std::move(v));
      if (one || failed_ || !accept(',')) break;
    }
    if (!one) expect(';');
  }

  void initializer(std::vector<Operand>& out, int depth = 0) {
    if (depth > kMaxNesting) { syntax_error(); return; }
    if (accept('{')) {
      if (!punct('}')) {
        do initializer(out, depth + 1); while (!failed_ && accept(','));
      }
      expect('}');
      return;
    }
    if (peek().kind == K::Ident && peek().text == "generic" && punct('(', 1)) {
      next(); next();
      Operand o; o.kind = Operand::Kind::Symbol; o.name = ident(); out.push_back(o);
      expect(')');
      return;
    }
    out.push_back(operand());
  }

  // .entry name (params) perf* { body }   .func [(rets)] name [(params)] perf* ({ body } | ;)
  void function(bool is_entry) {
    Function f;
    f.is_entry = is_entry;
    f.linkage = linkage_;
    f.line = peek().line;
    if (!is_entry && punct('(')) param_list(f.returns);
    f.name = ident();
    if (punct('(')) param_list(f.params);
    while (!failed_ && peek().kind == K::Directive) {
      std::string d = next().text;
      uint32_t* dst = d == "maxntid" ? f.maxntid : d == "reqntid" ? f.reqntid : nullptr;
      if (dst) {
        for (int i = 0; i < 3; ++i) {
          dst[i] = static_cast<uint32_t>(integer());
          if (!accept(',')) break;
        }
      } else if (d == "minnctapersm") {
        f.minnctapersm = static_cast<uint32_t>(integer());
      } else if (d == "maxnreg" || d == "maxnctapersm" || d == "maxclusterrank") {
        integer();
      } else if (d == "reqnctapercluster") {  // x[, y[, z]]: the cluster shape every launch must have
        for (int i = 0; i < 3; ++i) f.reqnctapercluster[i] = 1;
        for (int i = 0; i < 3 && peek().kind == K::Int; ++i) {
          f.reqnctapercluster[i] = static_cast<uint32_t>(integer());
          if (!accept(',')) break;
        }
      } else if (d == "explicitcluster") {
      } else if (d == "noreturn") {
      } else if (d == "pragma") {
        if (peek().kind == K::String) next();
        expect(';');
      } else {
        --p_;
        syntax_error();
      }
    }
    if (failed_) return;
    f.header_end_line = t_[p_ - 1].line;
    if (accept(';')) { m_.functions.push_back(std::move(f)); return; }
    f.body_line = peek().line;
    if (!expect('{')) return;
    f.has_body = true;
    f.end_line = body(f.body);
    m_.functions.push_back(std::move(f));
  }

  void param_list(std::vector<VarDecl>& out) {
    expect('(');
    if (accept(')')) return;
    do {
      if (peek().kind != K::Directive || (peek().text != "param" && peek().text != "reg")) { syntax_error(); return; }
      std::string space = next().text;
      declarations(space, out, true);
    } while (!failed_ && accept(','));
    expect(')');
  }

  // Statements up to the function's closing brace; nested { } blocks are kept as markers.
  // Returns the line of the closing brace.
  int body(std::vector<Statement>& out) {
    int depth = 1;
    int loc_file = 0, loc_line = 0;
    scopes_.clear();
    while (!failed_) {
      const Token& t = peek();
      Statement s;
      s.line = t.line;
      if (t.kind == K::End) { syntax_error(); return 0; }
      if (punct('{')) {
        next();
        ++depth;
        scopes_.emplace_back();
        s.kind = Statement::Kind::BlockOpen;
        out.push_back(s);
        continue;
      }
      if (punct('}')) {
        int line = next().line;
        if (--depth == 0) return line;
        if (!scopes_.empty()) scopes_.pop_back();
        s.kind = Statement::Kind::BlockClose;
        out.push_back(s);
        continue;
      }
      if (t.kind == K::Directive) {
        std::string d = t.text;
        if (d == "reg" || d == "local" || d == "shared" || d == "param" || d == "const" || d == "global") {
          next();
          std::vector<VarDecl> decls;
          declarations(d, decls);
          for (auto& v : decls) {
            if (d == "reg" && !scopes_.empty()) scope_register(v);
            Statement ds;
            ds.kind = Statement::Kind::Decl;
            ds.line = v.line;
            ds.decl = std::move(v);
            out.push_back(std::move(ds));
          }
        } else if (d == "loc") {
          next();
          int line = t_[p_ - 1].line;
          loc_file = static_cast<int>(integer());
          loc_line = static_cast<int>(integer());
          while (peek().kind != K::End && peek().line == line && !punct('}')) next();
        } else if (d == "pragma") {
          next();
          if (peek().kind == K::String) next();
          expect(';');
        } else {
          syntax_error();
        }
        continue;
      }
      if (t.kind == K::Ident && punct(':', 1) && !punct(':', 2)) {
        s.kind = Statement::Kind::Label;
        s.label = next().text;
        next();
        if (dir("callprototype")) {
          // name: .callprototype (rets) _ (params) ;  declares a prototype for indirect calls.
          while (peek().kind != K::End && !punct(';')) next();
          expect(';');
        }
        out.push_back(std::move(s));
        continue;
      }
      s.kind = Statement::Kind::Instr;
      if (!instruction(s.instr)) continue;
      if (!scopes_.empty()) rename_scoped(s.instr);
      s.instr.loc_file = loc_file;
      s.instr.loc_line = loc_line;
      out.push_back(std::move(s));
    }
    return 0;
  }

  // A register declared inside a nested { } block (inline asm's `{ .reg .u32 start; ... }`) is
  // visible only there and may reuse a name declared elsewhere in the function, so it gets a
  // function-unique name ("%start$3_"), which the block's instructions use instead. The trailing
  // '_' keeps a range's renamed prefix apart from its numbers.
  void scope_register(VarDecl& v) {
    std::string unique = (v.name[0] == '%' ? "" : "%") + v.name + "$" + std::to_string(++scoped_count_) + "_";
    if (v.is_range) scopes_.back().ranges[v.name] = unique;
    else scopes_.back().singles[v.name] = unique;
    v.name = unique;
  }

  // The unique name of `name` in the innermost block that declares it, or "" if none does.
  std::string scoped_name(const std::string& name) const {
    for (auto s = scopes_.rbegin(); s != scopes_.rend(); ++s) {
      if (auto it = s->singles.find(name); it != s->singles.end()) return it->second;
      for (const auto& [prefix, unique] : s->ranges) {
        if (name.size() <= prefix.size() || name.compare(0, prefix.size(), prefix) != 0) continue;
        if (name.find_first_not_of("0123456789", prefix.size()) == std::string::npos)
          return unique + name.substr(prefix.size());
      }
    }
    return {};
  }

  void rename_scoped(Operand& o) {
    for (auto& e : o.elements) rename_scoped(e);
    if (o.kind != Operand::Kind::Register && o.kind != Operand::Kind::Symbol && o.kind != Operand::Kind::Address)
      return;
    if (!o.name.empty()) {
      if (std::string u = scoped_name(o.name); !u.empty()) {
        o.name = u;
        if (o.kind == Operand::Kind::Symbol) o.kind = Operand::Kind::Register;
      }
    }
    if (!o.second.empty()) {
      if (std::string u = scoped_name(o.second); !u.empty()) o.second = u;
    }
  }

  void rename_scoped(Instruction& in) {
    for (auto& o : in.operands) rename_scoped(o);
    if (!in.guard.empty()) {
      if (std::string u = scoped_name(in.guard); !u.empty()) in.guard = u;
    }
  }

  // [@[!]%p] opcode{.mod}* [operand {, operand}] ;
  bool instruction(Instruction& in) {
    in.line = peek().line;
    if (accept('@')) {
      in.guard_negated = accept('!');
      in.guard = ident();
    }
    if (failed_) return false;
    if (peek().kind != K::Ident) { syntax_error(); return false; }
    in.opcode = next().text;
    while (peek().kind == K::Directive) {
      in.modifiers.push_back(next().text);
      // .L1::no_allocate, .L2::128B, .mbarrier::complete_tx::bytes
      while (punct(':') && punct(':', 1)) {
        next(); next();
        std::string part = next().text;
        if (peek().kind == K::Ident && peek().line == in.line && t_[p_ - 1].kind == K::Int) part += next().text;
        in.modifiers.back() += "::" + part;
      }
    }
    if (!is_known_opcode(in.opcode)) {
      d_.push_back({Diagnostic::Severity::Error, in.line, "Not a name of any known instruction: '" + in.opcode + "'"});
      while (peek().kind != K::End && !punct(';')) next();
      accept(';');
      return false;
    }
    if (!punct(';')) {
      do in.operands.push_back(operand()); while (!failed_ && accept(','));
    }
    expect(';');
    return !failed_;
  }

  Operand operand(int depth = 0) {
    Operand o;
    if (depth > kMaxNesting) { syntax_error(); return o; }
    if (punct('{') || punct('(')) {
      char close = punct('{') ? '}' : ')';
      o.kind = Operand::Kind::Vector;
      o.name = peek().text;
      next();
      if (!punct(close)) {
        do o.elements.push_back(operand(depth + 1)); while (!failed_ && accept(','));
      }
      expect(close);
      return o;
    }
    if (accept('[')) {
      o.kind = Operand::Kind::Address;
      if (peek().kind == K::Int) {
        o.imm = static_cast<int64_t>(next().ivalue);
      } else {
        o.name = ident();
        if (accept('+')) o.imm = static_cast<int64_t>(integer());
        else if (punct('-')) o.imm = static_cast<int64_t>(integer());
      }
      // [handle, {coordinates}]: the texture and surface instructions' operand (elements[0]).
      if (accept(',')) o.elements.push_back(operand(depth + 1));
      expect(']');
      return o;
    }
    if (accept('!')) {
      o = operand(depth + 1);
      o.negated = true;
      return o;
    }
    bool neg = accept('-');
    const Token& t = peek();
    if (t.kind == K::Int) {
      next();
      o.kind = Operand::Kind::Immediate;
      o.imm = neg ? -static_cast<int64_t>(t.ivalue) : static_cast<int64_t>(t.ivalue);
      return o;
    }
    if (t.kind == K::Float) {
      next();
      o.kind = Operand::Kind::FloatImmediate;
      o.fimm = neg ? -t.fvalue : t.fvalue;
      o.fimm_single = t.fhex && t.fsingle;
      o.fbits = t.fbits;
      return o;
    }
    if (t.kind != K::Ident || neg) { syntax_error(); return o; }
    o.name = next().text;
    if (o.name == "_") { o.kind = Operand::Kind::Sink; return o; }
    if (o.name == "WARP_SZ") {  // PTX's predefined warp width (what `warpSize` compiles to)
      o.kind = Operand::Kind::Immediate;
      o.imm = 32;
      return o;
    }
    o.kind = o.name[0] == '%' ? Operand::Kind::Register : Operand::Kind::Symbol;
    if (o.kind == Operand::Kind::Register && peek().kind == K::Directive && peek().line == t_[p_ - 1].line) {
      o.component = next().text;
    }
    if (o.kind == Operand::Kind::Register && accept('|')) o.second = ident();
    if (o.kind == Operand::Kind::Symbol && accept('+')) {
      o.kind = Operand::Kind::Address;  // name+offset without brackets: an address value
      o.imm = static_cast<int64_t>(integer());
    }
    return o;
  }

  // Deeper nesting of braces or '!' than any PTX needs is a syntax error, not a deep recursion.
  static constexpr int kMaxNesting = 32;
  struct RegisterScope {
    std::map<std::string, std::string> singles, ranges;  // declared name (or range prefix) -> unique
  };
  std::vector<RegisterScope> scopes_;  // the nested blocks open around the statement being read
  unsigned scoped_count_ = 0;
  std::vector<Token> t_;
  size_t p_ = 0;
  Module& m_;
  std::vector<Diagnostic>& d_;
  bool failed_ = false;
  std::string linkage_;
  int version_line_ = 0;
};

}  // namespace

ParseOutcome parse(std::string_view text, const std::string& input_name, Module& module,
                   std::vector<Diagnostic>& diags) {
  Parser p(lex(text), module, diags);
  return p.module(input_name);
}

}  // namespace minicuda::ptx
