// A Treasure Island agent in C++17 that speaks the JSON-lines agent protocol
// (docs/agent-protocol.md) on stdin/stdout. Standard library only.
//
// Strategy: keep the set of tiles that can still hold the treasure (hint 1,
// verified hints, empty scans, the prison's reach and the pirate's shortest
// walk). Verify the hint that splits those candidates most evenly when the
// split is worth an action; otherwise scan the 5x5 window holding the most
// candidates per action it costs, walking there (small moves scan on the
// way) or teleporting there once when it is far. When the referee records
// notes (`run --notes`, `check-agent --beliefs`), each action carries one: the
// candidate count, why this action, and the candidate tiles themselves.
//
// Build: g++ -std=c++17 -O2 -o treasure-agent agent.cpp  (or `make`)

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <deque>
#include <iostream>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

// ---------------------------------------------------------------- JSON ----

struct Json {
    enum Type { Null, Bool, Num, Str, Arr, Obj } type = Null;
    bool b = false;
    double num = 0;
    std::string str;
    std::vector<Json> arr;
    std::vector<std::pair<std::string, Json>> obj;

    // The member `key` of an object, or a null value when absent (or not an object).
    const Json& operator[](const std::string& key) const {
        static const Json none;
        if (type == Obj)
            for (const auto& kv : obj)
                if (kv.first == key) return kv.second;
        return none;
    }
    const Json& at(size_t i) const {
        static const Json none;
        return (type == Arr && i < arr.size()) ? arr[i] : none;
    }
    bool isNull() const { return type == Null; }
    long long asInt(long long fallback = 0) const {
        return type == Num ? static_cast<long long>(std::llround(num)) : fallback;
    }
    bool asBool(bool fallback = false) const { return type == Bool ? b : fallback; }
    const std::string& asStr() const {
        static const std::string empty;
        return type == Str ? str : empty;
    }
};

class JsonParser {
public:
    explicit JsonParser(const std::string& text) : s_(text) {}

    Json parseDocument() {
        Json v = parseValue(0);
        skipSpace();
        if (i_ != s_.size()) fail("trailing characters");
        return v;
    }

private:
    const std::string& s_;
    size_t i_ = 0;

    [[noreturn]] void fail(const std::string& why) const {
        throw std::runtime_error("JSON: " + why + " at offset " + std::to_string(i_));
    }
    void skipSpace() {
        while (i_ < s_.size() && (s_[i_] == ' ' || s_[i_] == '\t' || s_[i_] == '\n' || s_[i_] == '\r')) ++i_;
    }
    char peek() {
        skipSpace();
        if (i_ >= s_.size()) fail("unexpected end");
        return s_[i_];
    }
    void expect(char c) {
        if (peek() != c) fail(std::string("expected '") + c + "'");
        ++i_;
    }
    void literal(const char* word) {
        for (const char* p = word; *p; ++p, ++i_)
            if (i_ >= s_.size() || s_[i_] != *p) fail("bad literal");
    }

    Json parseValue(int depth) {
        if (depth > 64) fail("nesting too deep");
        Json v;
        char c = peek();
        if (c == '{') {
            v.type = Json::Obj;
            ++i_;
            if (peek() == '}') { ++i_; return v; }
            for (;;) {
                if (peek() != '"') fail("expected a key");
                std::string key = parseString();
                expect(':');
                v.obj.emplace_back(std::move(key), parseValue(depth + 1));
                char d = peek();
                ++i_;
                if (d == '}') break;
                if (d != ',') fail("expected ',' or '}'");
            }
        } else if (c == '[') {
            v.type = Json::Arr;
            ++i_;
            if (peek() == ']') { ++i_; return v; }
            for (;;) {
                v.arr.push_back(parseValue(depth + 1));
                char d = peek();
                ++i_;
                if (d == ']') break;
                if (d != ',') fail("expected ',' or ']'");
            }
        } else if (c == '"') {
            v.type = Json::Str;
            v.str = parseString();
        } else if (c == 't') {
            literal("true"); v.type = Json::Bool; v.b = true;
        } else if (c == 'f') {
            literal("false"); v.type = Json::Bool; v.b = false;
        } else if (c == 'n') {
            literal("null");
        } else if (c == '-' || (c >= '0' && c <= '9')) {
            size_t start = i_;
            if (s_[i_] == '-') ++i_;
            while (i_ < s_.size() && std::string("0123456789.eE+-").find(s_[i_]) != std::string::npos) ++i_;
            std::string text = s_.substr(start, i_ - start);
            size_t used = 0;
            try { v.num = std::stod(text, &used); } catch (const std::exception&) { fail("bad number"); }
            if (used != text.size()) fail("bad number");
            v.type = Json::Num;
        } else {
            fail("unexpected character");
        }
        return v;
    }

    unsigned hex4() {
        if (i_ + 4 > s_.size()) fail("short \\u escape");
        unsigned u = 0;
        for (int k = 0; k < 4; ++k) {
            char h = s_[i_++];
            u <<= 4;
            if (h >= '0' && h <= '9') u |= unsigned(h - '0');
            else if (h >= 'a' && h <= 'f') u |= unsigned(h - 'a' + 10);
            else if (h >= 'A' && h <= 'F') u |= unsigned(h - 'A' + 10);
            else fail("bad \\u escape");
        }
        return u;
    }
    static void putUtf8(std::string& out, unsigned cp) {
        if (cp < 0x80) out += char(cp);
        else if (cp < 0x800) { out += char(0xC0 | (cp >> 6)); out += char(0x80 | (cp & 0x3F)); }
        else if (cp < 0x10000) {
            out += char(0xE0 | (cp >> 12)); out += char(0x80 | ((cp >> 6) & 0x3F)); out += char(0x80 | (cp & 0x3F));
        } else {
            out += char(0xF0 | (cp >> 18)); out += char(0x80 | ((cp >> 12) & 0x3F));
            out += char(0x80 | ((cp >> 6) & 0x3F)); out += char(0x80 | (cp & 0x3F));
        }
    }
    std::string parseString() {
        expect('"');
        std::string out;
        for (;;) {
            if (i_ >= s_.size()) fail("unterminated string");
            char c = s_[i_++];
            if (c == '"') return out;
            if (c != '\\') { out += c; continue; }
            if (i_ >= s_.size()) fail("unterminated escape");
            char e = s_[i_++];
            switch (e) {
                case '"': out += '"'; break;
                case '\\': out += '\\'; break;
                case '/': out += '/'; break;
                case 'b': out += '\b'; break;
                case 'f': out += '\f'; break;
                case 'n': out += '\n'; break;
                case 'r': out += '\r'; break;
                case 't': out += '\t'; break;
                case 'u': {
                    unsigned cp = hex4();
                    if (cp >= 0xD800 && cp < 0xDC00 && i_ + 6 <= s_.size() && s_[i_] == '\\' && s_[i_ + 1] == 'u') {
                        size_t save = i_;
                        i_ += 2;
                        unsigned lo = hex4();
                        if (lo >= 0xDC00 && lo < 0xE000) cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
                        else i_ = save;  // a lone high surrogate: keep it as is
                    }
                    putUtf8(out, cp);
                    break;
                }
                default: fail("bad escape");
            }
        }
    }
};

std::string jsonQuote(const std::string& s) {
    std::string out = "\"";
    for (unsigned char c : s) {
        switch (c) {
            case '"': out += "\\\""; break;
            case '\\': out += "\\\\"; break;
            case '\n': out += "\\n"; break;
            case '\r': out += "\\r"; break;
            case '\t': out += "\\t"; break;
            default:
                if (c < 0x20) {
                    char buf[8];
                    std::snprintf(buf, sizeof buf, "\\u%04x", c);
                    out += buf;
                } else {
                    out += char(c);
                }
        }
    }
    return out + "\"";
}

void sendLine(const std::string& line) {
    std::fwrite(line.data(), 1, line.size(), stdout);
    std::fputc('\n', stdout);
    std::fflush(stdout);
}

// ---------------------------------------------------------------- game ----

static const int DR[4] = {-1, 0, 1, 0};  // N E S W
static const int DC[4] = {0, 1, 0, -1};
static const char* const DIR_NAME[4] = {"N", "E", "S", "W"};

// Tuning knobs.
static const double MIN_SPLIT = 0.10;     // verify when the smaller side holds at least this share
static const int TELEPORT_DISTANCE = 8;   // teleport when the target is further than this (walking)
static const double SCAN_ON_WAY_BONUS = 1.5;  // worth of a small move's 3x3 scan, in steps of progress
static const size_t MAX_NOTE_RUNS_CHARS = 500000;  // a note's tiles as text, at most

class Agent {
public:
    void start(const Json& msg) {
        started_ = false;  // until this start has been read whole
        const Json& isl = msg["island"];
        W_ = int(isl["width"].asInt());
        H_ = int(isl["height"].asInt());
        if (W_ <= 0 || H_ <= 0 || W_ > 100000 || H_ > 100000 || (long long)W_ * H_ > 50000000LL)
            throw std::runtime_error("bad island size");
        const int n = W_ * H_;
        walk_.assign(n, 0);
        prisonTile_.assign(n, 0);
        const Json& regions = isl["regions"];
        const Json& mountain = isl["mountain"];
        const Json& prison = isl["prison"];
        for (int r = 0; r < H_; ++r) {
            const Json& row = regions.at(r);
            const std::string& mrow = mountain.at(r).asStr();
            const std::string& prow = prison.at(r).asStr();
            for (int c = 0; c < W_; ++c) {
                bool land = row.at(c).asInt() != 0;
                bool mount = c < int(mrow.size()) && mrow[c] == '1';
                bool pris = c < int(prow.size()) && prow[c] == '1';
                walk_[r * W_ + c] = land && !mount;
                prisonTile_[r * W_ + c] = pris;
            }
        }
        // The treasure lies on a walkable tile that is not a prison.
        cand_.assign(n, 0);
        for (int i = 0; i < n; ++i) cand_[i] = walk_[i] && !prisonTile_[i];
        hints_.clear();
        hintState_.clear();
        pos_ = -1;
        teleportUsed_ = false;
        prison_ = -1;
        pirate_ = -1;
        pirateWalked_ = 0;
        distPrison_.clear();
        notes_ = msg["options"]["notes"].asBool();
        started_ = true;
    }

    std::string act(const Json& msg) {
        if (!started_) throw std::runtime_error("act before start");
        for (const Json& e : msg["news"].arr) onEvent(e);
        const Json& p = msg["position"];
        if (p.type == Json::Arr) pos_ = tile(int(p.at(0).asInt()), int(p.at(1).asInt()));
        teleportUsed_ = msg["teleport_used"].asBool(teleportUsed_);
        if (pos_ < 0 || pos_ >= W_ * H_) throw std::runtime_error("unknown position");
        why_.clear();
        std::string action = choose();
        if (!notes_) return action;
        // The note: one line of text, and the candidates as [start, length, ...] runs of tile indices.
        std::string runs;
        for (int t = 0, n = W_ * H_; t < n;) {
            if (!cand_[t]) { ++t; continue; }
            int start = t;
            while (t < n && cand_[t]) ++t;
            runs += (runs.empty() ? "" : ",") + std::to_string(start) + "," + std::to_string(t - start);
        }
        action.pop_back();  // its closing brace
        action += ",\"note\":{\"text\":" + jsonQuote(std::to_string(candidates_) + " candidates; " + why_);
        if (runs.size() <= MAX_NOTE_RUNS_CHARS)  // (a line may not pass 1 MiB: then the text alone)
            action += ",\"tiles\":[" + runs + "],\"candidates\":true";
        return action + "}}";
    }

    void end() { started_ = false; }

private:
    int W_ = 0, H_ = 0;
    std::vector<char> walk_, prisonTile_, cand_;
    std::vector<std::vector<char>> hints_;  // hints_[k-1]: the tile set of hint k
    std::vector<int> hintState_;            // -1 unknown, 0 false, 1 true
    int pos_ = -1;
    bool teleportUsed_ = false;
    int prison_ = -1, pirate_ = -1, pirateWalked_ = 0;
    std::vector<int> distPrison_;
    bool started_ = false;
    bool notes_ = false;    // the referee records notes: explain each action
    int candidates_ = 0;    // the candidates when the last action was chosen
    std::string why_;       // why it was chosen, for the note

    int tile(int r, int c) const { return (r >= 0 && r < H_ && c >= 0 && c < W_) ? r * W_ + c : -1; }
    int tileOf(const Json& p) const { return tile(int(p.at(0).asInt()), int(p.at(1).asInt())); }

    // ------------------------------------------------------- knowledge --
    void onEvent(const Json& e) {
        const std::string& kind = e["event"].asStr();
        if (kind == "agent_placed") {
            pos_ = tileOf(e["pos"]);
        } else if (kind == "hint_given") {
            int k = int(e["number"].asInt());
            if (k < 1) return;
            if (int(hints_.size()) < k) { hints_.resize(k); hintState_.resize(k, -1); }
            std::vector<char>& mask = hints_[k - 1];
            mask.assign(W_ * H_, 0);
            const auto& runs = e["hint"]["tiles"].arr;
            for (size_t i = 0; i + 1 < runs.size(); i += 2) {
                long long a = std::max(0LL, runs[i].asInt());
                long long b = std::min<long long>(W_ * H_, a + runs[i + 1].asInt());
                for (long long t = a; t < b; ++t) mask[t] = 1;
            }
            if (e["truthful"].type == Json::Bool) setTruth(k, e["truthful"].b);
        } else if (kind == "hint_verified") {
            setTruth(int(e["number"].asInt()), e["truthful"].asBool());
        } else if (kind == "agent_moved" || kind == "teleported") {
            int d = tileOf(e["dst"]);
            if (d >= 0) pos_ = d;
            if (kind == "teleported") teleportUsed_ = true;
        } else if (kind == "area_scanned") {
            int c = tileOf(e["centre"]);
            int half = int(e["size"].asInt()) / 2;
            if (c < 0 || e["found"].asBool()) return;
            int r0 = c / W_, c0 = c % W_;
            for (int r = std::max(0, r0 - half); r <= std::min(H_ - 1, r0 + half); ++r)
                for (int cc = std::max(0, c0 - half); cc <= std::min(W_ - 1, c0 + half); ++cc)
                    cand_[r * W_ + cc] = 0;
        } else if (kind == "prison_revealed") {
            setPrison(tileOf(e["pos"]));
        } else if (kind == "pirate_moved") {
            int s = tileOf(e["src"]), d = tileOf(e["dst"]);
            if (s < 0 || d < 0) return;
            if (prison_ < 0 && pirateWalked_ == 0) setPrison(s);  // his first move starts at the prison
            pirateWalked_ += std::abs(s / W_ - d / W_) + std::abs(s % W_ - d % W_);
            pirate_ = d;
            cand_[s] = 0;
            cand_[d] = 0;  // the game goes on, so he is not on the treasure
            if (!distPrison_.empty()) {
                // He walks a shortest path from the prison to the treasure, so the
                // treasure t satisfies dist(prison, t) = walked + dist(pirate, t).
                std::vector<int> fromPirate = bfs(d);
                for (int t = 0; t < W_ * H_; ++t)
                    if (cand_[t] && (fromPirate[t] < 0 || distPrison_[t] != pirateWalked_ + fromPirate[t]))
                        cand_[t] = 0;
            }
        }
    }

    void setTruth(int k, bool truthful) {
        if (k < 1 || k > int(hints_.size()) || hints_[k - 1].empty()) return;
        hintState_[k - 1] = truthful ? 1 : 0;
        const std::vector<char>& m = hints_[k - 1];
        for (int t = 0; t < W_ * H_; ++t)
            if (bool(m[t]) != truthful) cand_[t] = 0;
    }

    void setPrison(int p) {
        if (p < 0) return;
        prison_ = p;
        distPrison_ = bfs(p);
        for (int t = 0; t < W_ * H_; ++t)
            if (distPrison_[t] < 0) cand_[t] = 0;  // the pirate can walk to the treasure
    }

    // Walking distances from `src` over walkable tiles (-1: unreachable).
    std::vector<int> bfs(int src) const {
        std::vector<int> dist(W_ * H_, -1);
        if (src < 0 || !walk_[src]) return dist;
        std::deque<int> q{src};
        dist[src] = 0;
        while (!q.empty()) {
            int t = q.front();
            q.pop_front();
            int r = t / W_, c = t % W_;
            for (int d = 0; d < 4; ++d) {
                int n = tile(r + DR[d], c + DC[d]);
                if (n >= 0 && walk_[n] && dist[n] < 0) { dist[n] = dist[t] + 1; q.push_back(n); }
            }
        }
        return dist;
    }

    // Candidates in the (2*half+1) square around every tile, clipped at the edge.
    std::vector<int> windowCounts(int half) const {
        std::vector<int> pre((H_ + 1) * (W_ + 1), 0);
        for (int r = 0; r < H_; ++r)
            for (int c = 0; c < W_; ++c)
                pre[(r + 1) * (W_ + 1) + c + 1] = cand_[r * W_ + c] + pre[r * (W_ + 1) + c + 1] +
                                                  pre[(r + 1) * (W_ + 1) + c] - pre[r * (W_ + 1) + c];
        std::vector<int> out(W_ * H_);
        for (int r = 0; r < H_; ++r)
            for (int c = 0; c < W_; ++c) {
                int r0 = std::max(0, r - half), r1 = std::min(H_, r + half + 1);
                int c0 = std::max(0, c - half), c1 = std::min(W_, c + half + 1);
                out[r * W_ + c] = pre[r1 * (W_ + 1) + c1] - pre[r0 * (W_ + 1) + c1] -
                                  pre[r1 * (W_ + 1) + c0] + pre[r0 * (W_ + 1) + c0];
            }
        return out;
    }

    // The tile reached by a legal move, or -1 when a step leaves the map or the walkable tiles.
    int moveTarget(int from, int d, int steps) const {
        int r = from / W_, c = from % W_;
        for (int s = 0; s < steps; ++s) {
            r += DR[d];
            c += DC[d];
            int t = tile(r, c);
            if (t < 0 || !walk_[t]) return -1;
        }
        return r * W_ + c;
    }

    // ----------------------------------------------------------- choice --
    static std::string scan() { return "{\"type\":\"action\",\"action\":\"scan\"}"; }
    std::string verify(int k) const {
        return "{\"type\":\"action\",\"action\":\"verify\",\"hint\":" + std::to_string(k) + "}";
    }
    std::string move(int d, int steps) const {
        return std::string("{\"type\":\"action\",\"action\":\"move\",\"direction\":\"") + DIR_NAME[d] +
               "\",\"steps\":" + std::to_string(steps) + "}";
    }
    std::string teleport(int t) const {
        return "{\"type\":\"action\",\"action\":\"teleport\",\"to\":[" + std::to_string(t / W_) + "," +
               std::to_string(t % W_) + "]}";
    }

    // The tile `t` as "(row, col)", for notes.
    std::string at(int t) const { return "(" + std::to_string(t / W_) + ", " + std::to_string(t % W_) + ")"; }

    std::string choose() {
        const int n = W_ * H_;
        int total = 0;
        for (int t = 0; t < n; ++t) total += cand_[t];
        candidates_ = total;
        if (total == 0) {
            std::fprintf(stderr, "treasure-agent: no candidate left; scanning\n");
            why_ = "none left (a fact was misread?): scan 5x5";
            return scan();
        }
        std::vector<int> win5 = windowCounts(2);
        if (win5[pos_] == total) {
            why_ = "scan 5x5: it covers them all";
            return scan();  // this scan finds it
        }

        // Verify the hint that splits the candidates most evenly, if the split is useful.
        int bestHint = -1, bestIn = 0;
        double bestSplit = 0;
        for (size_t k = 0; k < hints_.size(); ++k) {
            if (hintState_[k] != -1 || hints_[k].empty()) continue;
            int in = 0;
            for (int t = 0; t < n; ++t) in += cand_[t] && hints_[k][t];
            double split = double(std::min(in, total - in)) / total;
            if (split > bestSplit) { bestSplit = split; bestHint = int(k) + 1; bestIn = in; }
        }
        if (bestHint > 0 && bestSplit >= MIN_SPLIT) {
            why_ = "verify " + std::to_string(bestHint) + ": splits them " + std::to_string(bestIn) + " in its tiles, " +
                   std::to_string(total - bestIn) + " out";
            return verify(bestHint);
        }
        const int pct = int(std::lround(MIN_SPLIT * 100));
        const std::string noSplit = bestHint < 0 ? "" : "; no hint splits them " + std::to_string(pct) + "/" +
                                                        std::to_string(100 - pct) + " or better";

        // The target: the walkable tile whose 5x5 scan covers the most candidates per
        // action spent reaching and scanning it; the nearest by walking when several tie.
        std::vector<int> dist = bfs(pos_);
        const long long FAR = 1LL << 40;
        int target = -1;
        long long targetDist = 0;
        double targetScore = 0;
        for (int t = 0; t < n; ++t) {
            if (!walk_[t] || win5[t] == 0) continue;
            if (dist[t] < 0 && teleportUsed_) continue;
            long long d = dist[t] < 0 ? FAR : dist[t];
            // Candidates per action spent: the moves to get there (a teleport is free) and the scan.
            bool byTeleport = !teleportUsed_ && d > TELEPORT_DISTANCE;
            double actions = 1 + (byTeleport ? 0 : double((d + 3) / 4));
            double score = win5[t] / actions;
            if (target < 0 || score > targetScore || (score == targetScore && d < targetDist)) {
                target = t;
                targetDist = d;
                targetScore = score;
            }
        }
        if (target < 0) {
            std::fprintf(stderr, "treasure-agent: candidates out of reach; scanning\n");
            why_ = "none within reach: scan 5x5";
            return scan();
        }
        const std::string covers = " covers " + std::to_string(win5[target]) + noSplit;
        if (target == pos_) {
            why_ = "scan 5x5 here: it" + covers;
            return scan();
        }
        if (!teleportUsed_ && targetDist > TELEPORT_DISTANCE) {
            why_ = "teleport to " + at(target) + ": a scan there" + covers;
            return teleport(target);
        }

        // Walk toward it: the most progress, a small move's 3x3 scan counting as a bonus.
        std::vector<int> toTarget = bfs(target);
        std::vector<int> win3 = windowCounts(1);
        int bestD = -1, bestSteps = 0;
        double bestScore = 0;
        for (int d = 0; d < 4; ++d)
            for (int steps = 1; steps <= 4; ++steps) {
                int to = moveTarget(pos_, d, steps);
                if (to < 0) break;  // a longer move in this direction is blocked too
                int progress = toTarget[pos_] - toTarget[to];
                if (progress <= 0) continue;
                double score = progress + ((steps <= 2 && win3[to] > 0) ? SCAN_ON_WAY_BONUS : 0.0);
                if (score > bestScore) { bestScore = score; bestD = d; bestSteps = steps; }
            }
        if (bestD < 0) {
            why_ = "scan 5x5 (no move gets closer to " + at(target) + ")";
            return scan();  // cannot happen while the target is reachable; stays legal
        }
        why_ = std::string("move ") + DIR_NAME[bestD] + " " + std::to_string(bestSteps) + " toward " + at(target) +
               ": a scan there" + covers;
        return move(bestD, bestSteps);
    }
};

// ---------------------------------------------------------------- main ----

int main() {
    std::ios::sync_with_stdio(false);
    Agent agent;
    std::string line;
    while (std::getline(std::cin, line)) {
        if (!line.empty() && line.back() == '\r') line.pop_back();
        if (line.find_first_not_of(" \t") == std::string::npos) continue;
        std::string type;
        try {
            Json msg = JsonParser(line).parseDocument();
            type = msg["type"].asStr();
            if (type == "hello") {
                sendLine("{\"type\":\"hello\",\"protocol\":1,\"agent\":\"cpp-example\"}");
            } else if (type == "start") {
                agent.start(msg);
            } else if (type == "act") {
                sendLine(agent.act(msg));
            } else if (type == "end") {
                agent.end();
                sendLine("{\"type\":\"ready\"}");
            } else if (type == "bye") {
                return 0;
            } else {
                std::fprintf(stderr, "treasure-agent: ignoring a message of type %s\n", jsonQuote(type).c_str());
            }
        } catch (const std::exception& exc) {
            std::fprintf(stderr, "treasure-agent: %s\n", exc.what());
            // Give up this game rather than crash; a broken `start` surfaces at the next `act`.
            if (type != "start" && type != "bye")
                sendLine("{\"type\":\"error\",\"message\":" + jsonQuote(std::string("C++ agent: ") + exc.what()) + "}");
        }
    }
    return 0;
}
