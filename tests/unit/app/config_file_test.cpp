#include "yuzu/app/config_file.hpp"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

#include "support/temp_dir.hpp"

namespace yuzu::app {

void PrintTo(const ConfigEntry& e, std::ostream* os) {
    *os << "{" << e.key << " " << config_kind_name(e.kind) << " line " << e.line << ":";
    for (const auto& v : e.values) *os << " [" << v << "]";
    *os << "}";
}

namespace {

using Kind = ConfigEntry::Kind;

Result<std::vector<ConfigEntry>> parse(std::string_view text) {
    return parse_config_text(text, "test.toml");
}

// The text parsed into exactly one entry; that entry.
ConfigEntry only_entry(std::string_view text) {
    auto parsed = parse(text);
    EXPECT_TRUE(parsed.ok()) << parsed.status().message();
    if (!parsed.ok() || parsed->size() != 1) {
        ADD_FAILURE() << "expected one entry from: " << text;
        return {};
    }
    return parsed->front();
}

// The text is refused with one line "test.toml:<line>: ..." containing `what`.
::testing::AssertionResult Refused(std::string_view text, int line, std::string_view what) {
    auto parsed = parse(text);
    if (parsed.ok()) return ::testing::AssertionFailure() << "parsed: " << text;
    const std::string& message = parsed.status().message();
    const std::string prefix = "test.toml:" + std::to_string(line) + ": ";
    if (parsed.status().code() != StatusCode::kInvalidArgument) {
        return ::testing::AssertionFailure() << "not InvalidArgument: " << message;
    }
    if (message.rfind(prefix, 0) != 0) {
        return ::testing::AssertionFailure() << "expected '" << prefix << "...', got: " << message;
    }
    if (message.find(what) == std::string::npos) {
        return ::testing::AssertionFailure() << "expected '" << what << "' in: " << message;
    }
    if (message.find('\n') != std::string::npos) {
        return ::testing::AssertionFailure() << "more than one line: " << message;
    }
    return ::testing::AssertionSuccess();
}

// Comment and blank lines of exactly `bytes` bytes in total.
std::string filler(size_t bytes) {
    std::string text;
    while (text.size() < bytes) {
        const size_t line = std::min<size_t>(bytes - text.size(), 4000);
        text += line == 1 ? "\n" : "#" + std::string(line - 2, 'x') + "\n";
    }
    return text;
}

std::string array_of(size_t n) {
    std::string text = "a = [";
    for (size_t i = 0; i < n; ++i) text += "\"v" + std::to_string(i) + "\", ";
    return text + "]\n";
}

TEST(ConfigFile, AnEmptyOrCommentOnlyTextHasNoEntries) {
    for (std::string_view text : {"", "\n\n", "# only a comment\n", "  \t\n   # indented\n"}) {
        auto parsed = parse(text);
        ASSERT_TRUE(parsed.ok()) << parsed.status().message();
        EXPECT_TRUE(parsed->empty());
    }
}

TEST(ConfigFile, ParsesEveryValueKindInFileOrderWithItsLine) {
    auto parsed = parse(
        "# yuzu\n"
        "listen = \"0.0.0.0:8080\"\n"
        "data-dir = '/var/lib/yuzu'\n"
        "\n"
        "agent-heartbeat-interval = 30\n"
        "mcp-read-only = true\n"
        "mcp-disable = false\n"
        "mcp-allowed-origin = [\"http://a:1\", 'http://b:2']\n");
    ASSERT_TRUE(parsed.ok()) << parsed.status().message();
    const std::vector<ConfigEntry> expected = {
        {"listen", Kind::kString, {"0.0.0.0:8080"}, 2},
        {"data-dir", Kind::kString, {"/var/lib/yuzu"}, 3},
        {"agent-heartbeat-interval", Kind::kInteger, {"30"}, 5},
        {"mcp-read-only", Kind::kBoolean, {"true"}, 6},
        {"mcp-disable", Kind::kBoolean, {"false"}, 7},
        {"mcp-allowed-origin", Kind::kArray, {"http://a:1", "http://b:2"}, 8},
    };
    EXPECT_EQ(*parsed, expected);
}

TEST(ConfigFile, BasicStringEscapesAreDecodedToUtf8) {
    const auto e = only_entry(R"(k = "q\" b\\ n\n t\t e\u00e9 euro\u20AC")");
    EXPECT_EQ(e.values, std::vector<std::string>{"q\" b\\ n\n t\t e\xC3\xA9 euro\xE2\x82\xAC"});
    EXPECT_EQ(only_entry(R"(k = "")").values, std::vector<std::string>{""});
}

TEST(ConfigFile, LiteralStringsKeepBackslashesAndDoubleQuotes) {
    EXPECT_EQ(only_entry(R"(k = 'C:\dir\n "x"')").values,
              std::vector<std::string>{R"(C:\dir\n "x")"});
    EXPECT_EQ(only_entry("k = ''").values, std::vector<std::string>{""});
}

TEST(ConfigFile, ValidMultibyteUtf8IsKeptInStringsAndComments) {
    const auto e =
        only_entry("# caf\xC3\xA9 \xF0\x9F\x98\x80\nk = \"\xE2\x82\xAC \xF0\x9F\x98\x80\"");
    EXPECT_EQ(e.values, std::vector<std::string>{"\xE2\x82\xAC \xF0\x9F\x98\x80"});
    EXPECT_EQ(e.line, 2);
}

TEST(ConfigFile, IntegersAreCanonicalDecimalWithoutSeparatorsOrPlus) {
    EXPECT_EQ(only_entry("k = 1_000_000").values, std::vector<std::string>{"1000000"});
    EXPECT_EQ(only_entry("k = +5").values, std::vector<std::string>{"5"});
    EXPECT_EQ(only_entry("k = -17").values, std::vector<std::string>{"-17"});
    EXPECT_EQ(only_entry("k = 0").values, std::vector<std::string>{"0"});
    EXPECT_EQ(only_entry("k = -0").values, std::vector<std::string>{"0"});
    EXPECT_EQ(only_entry("k = 9223372036854775807").values,
              std::vector<std::string>{"9223372036854775807"});
    EXPECT_EQ(only_entry("k = -9_223_372_036_854_775_808").values,
              std::vector<std::string>{"-9223372036854775808"});
    EXPECT_EQ(only_entry("k = 7").kind, Kind::kInteger);
}

TEST(ConfigFile, IntegersOutsideInt64AreRefused) {
    EXPECT_TRUE(Refused("k = 9223372036854775808", 1, "does not fit in 64 bits"));
    EXPECT_TRUE(Refused("k = -9223372036854775809", 1, "does not fit in 64 bits"));
    EXPECT_TRUE(Refused("k = 99999999999999999999999999", 1, "does not fit in 64 bits"));
}

TEST(ConfigFile, MalformedIntegersAreRefusedWithTheirLine) {
    EXPECT_TRUE(Refused("a = 1\nk = 007", 2, "leading zero"));
    EXPECT_TRUE(Refused("a = 1\nk = +01", 2, "leading zero"));
    EXPECT_TRUE(Refused("a = 1\nk = 1__0", 2, "'_' allowed between two digits"));
    EXPECT_TRUE(Refused("a = 1\nk = 1_", 2, "'_' allowed between two digits"));
    EXPECT_TRUE(Refused("a = 1\nk = 12abc", 2, "invalid integer '12abc'"));
    EXPECT_TRUE(Refused("a = 1\nk = 0x1F", 2, "hexadecimal, octal and binary"));
    EXPECT_TRUE(Refused("a = 1\nk = 0o17", 2, "hexadecimal, octal and binary"));
    EXPECT_TRUE(Refused("a = 1\nk = 0b101", 2, "hexadecimal, octal and binary"));
    EXPECT_TRUE(Refused("a = 1\nk = _1", 2, "is not a value"));
    EXPECT_TRUE(Refused("a = 1\nk = -", 2, "is not a value"));
}

TEST(ConfigFile, ArraysAllowATrailingCommaMixedQuotesAndEmptiness) {
    auto e = only_entry("k = [ \"a\" , 'b\\c' , ]");
    EXPECT_EQ(e.kind, Kind::kArray);
    EXPECT_EQ(e.values, (std::vector<std::string>{"a", "b\\c"}));
    EXPECT_EQ(only_entry("k = []").values, std::vector<std::string>{});
    EXPECT_EQ(only_entry("k = [ \t ]").kind, Kind::kArray);
    EXPECT_EQ(only_entry("k = [\"x,]\"]").values, std::vector<std::string>{"x,]"});
}

TEST(ConfigFile, MalformedArraysAreRefusedWithTheirLine) {
    EXPECT_TRUE(Refused("a = 1\nk = [\"a\", [\"b\"]]", 2, "nested arrays are not supported"));
    EXPECT_TRUE(Refused("a = 1\nk = [[]]", 2, "nested arrays are not supported"));
    EXPECT_TRUE(Refused("a = 1\nk = [1, 2]", 2, "array elements must be strings"));
    EXPECT_TRUE(Refused("a = 1\nk = [true]", 2, "array elements must be strings"));
    EXPECT_TRUE(Refused("a = 1\nk = [,]", 2, "expected a string or ']'"));
    EXPECT_TRUE(Refused("a = 1\nk = [\"a\",,]", 2, "expected a string or ']'"));
    EXPECT_TRUE(
        Refused("a = 1\nk = [\"a\" \"b\"]", 2, "expected ',' or ']' after array element 1"));
    EXPECT_TRUE(Refused("a = 1\nk = [\"a\",\n\"b\"]", 2, "unterminated array"));
    EXPECT_TRUE(Refused("a = 1\nk = [\"a\" # note ]", 2, "unterminated array"));
}

TEST(ConfigFile, CommentsAndWhitespaceAroundKeysAndValuesAreIgnored) {
    auto parsed = parse(
        "  # indented comment\n"
        "\ta\t=\t\"x\"\t# after a string\n"
        "b=2#tight\n"
        "c = [\"#not a comment\"] # after an array\n"
        "d = '# not one either'\n");
    ASSERT_TRUE(parsed.ok()) << parsed.status().message();
    ASSERT_EQ(parsed->size(), 4u);
    EXPECT_EQ((*parsed)[0], (ConfigEntry{"a", Kind::kString, {"x"}, 2}));
    EXPECT_EQ((*parsed)[1], (ConfigEntry{"b", Kind::kInteger, {"2"}, 3}));
    EXPECT_EQ((*parsed)[2].values, std::vector<std::string>{"#not a comment"});
    EXPECT_EQ((*parsed)[3].values, std::vector<std::string>{"# not one either"});
}

TEST(ConfigFile, ADuplicateKeyIsRefusedWithItsLine) {
    EXPECT_TRUE(Refused("listen = \"a:1\"\n# x\nlisten = \"b:2\"\n", 3,
                        "duplicate key 'listen' (first set on line 1)"));
}

TEST(ConfigFile, TomlFeaturesOutsideTheSubsetAreRefusedNamingTheFeature) {
    struct Case {
        const char* line;
        const char* what;
    };
    const Case cases[] = {
        {"[server]", "tables ('[section]') are not supported"},
        {"[[server]]", "arrays of tables ('[[...]]') are not supported"},
        {"server.listen = \"x\"", "dotted keys"},
        {"server .listen = \"x\"", "dotted keys"},
        {"\"listen\" = \"x\"", "quoted keys are not supported"},
        {"'listen' = \"x\"", "quoted keys are not supported"},
        {"k = { a = 1 }", "inline tables"},
        {"k = \"\"\"text\"\"\"", "multi-line strings"},
        {"k = '''text'''", "multi-line strings"},
        {"k = 1.5", "floats"},
        {"k = 1e3", "floats"},
        {"k = -2.5E-3", "floats"},
        {"k = inf", "floats ('inf') are not supported"},
        {"k = -nan", "floats ('-nan') are not supported"},
        {"k = 1979-05-27", "dates and times are not supported"},
        {"k = 07:32:00", "dates and times are not supported"},
        {"k = 1979-05-27T07:32:00Z", "dates and times are not supported"},
        {"k = \"a\\rb\"", "escape '\\r' is not supported"},
        {"k = \"a\\U0001F600\"", "escape '\\U' is not supported"},
        {"k = \"a\\x41\"", "escape '\\x' is not supported"},
    };
    for (const Case& c : cases) {
        EXPECT_TRUE(Refused(std::string("ok = 1\n") + c.line + "\n", 2, c.what)) << c.line;
    }
}

TEST(ConfigFile, MalformedLinesAreRefusedWithTheirLine) {
    struct Case {
        const char* line;
        const char* what;
    };
    const Case cases[] = {
        {"Listen = \"x\"", "key 'Listen' is not a flag's long name without its dashes"},
        {"data_dir = \"x\"", "key 'data_dir' is not a flag's long name"},
        {"--listen = \"x\"", "key '--listen' is not a flag's long name without its dashes"},
        {"= \"x\"", "expected a key, found '='"},
        {".a = 1", "expected a key, found '.'"},
        {"listen", "has no '= value'"},
        {"listen # comment", "has no '= value'"},
        {"listen \"x\"", "expected '=' after key 'listen', found '\"'"},
        {"listen =", "has no value after '='"},
        {"listen = # nothing", "has no value after '='"},
        {"listen = localhost", "'localhost' is not a value"},
        {"mcp-disable = True", "write booleans as true or false"},
        {"listen = \"a\" \"b\"", "unexpected '\"' after the value of 'listen'"},
        {"port = 80 80", "unexpected '8' after the value"},
        {"k = \xC3\xA9", "expected a value, found U+00E9"},
    };
    for (const Case& c : cases) {
        EXPECT_TRUE(Refused(std::string("ok = 1\n\n") + c.line + "\n", 3, c.what)) << c.line;
    }
}

TEST(ConfigFile, AnUnterminatedStringIsRefusedWithItsLine) {
    EXPECT_TRUE(Refused("a = 1\nk = \"open\n", 2, "unterminated string"));
    EXPECT_TRUE(Refused("a = 1\nk = \"ends in a backslash\\", 2, "unterminated string"));
    EXPECT_TRUE(Refused("a = 1\nk = \"escaped quote\\\"\n", 2, "unterminated string"));
    EXPECT_TRUE(Refused("a = 1\nk = 'open\n'", 2, "unterminated literal string"));
    EXPECT_TRUE(Refused("a = 1\nk = [\"a\", \"b]\n", 2, "unterminated string"));
}

TEST(ConfigFile, CrlfLineEndingsAreAccepted) {
    auto parsed = parse("# c\r\na = \"x\"\r\n\r\nb = [ 'y' ]\r\nc = 3\r\n");
    ASSERT_TRUE(parsed.ok()) << parsed.status().message();
    const std::vector<ConfigEntry> expected = {{"a", Kind::kString, {"x"}, 2},
                                               {"b", Kind::kArray, {"y"}, 4},
                                               {"c", Kind::kInteger, {"3"}, 5}};
    EXPECT_EQ(*parsed, expected);
    EXPECT_TRUE(Refused("a = 1\r\nb = 2\r\nc = 3 @\r\n", 3, "unexpected '@'"));
}

TEST(ConfigFile, ALoneCarriageReturnIsRefused) {
    EXPECT_TRUE(Refused("a = 1\nb = 2\rc = 3\n", 2, "a carriage return not followed by"));
    EXPECT_TRUE(Refused("a = 1\nb = 2\r", 2, "U+000D"));
}

TEST(ConfigFile, AByteOrderMarkIsAcceptedOnlyAtTheStart) {
    EXPECT_EQ(only_entry("\xEF\xBB\xBFk = 1\n"), (ConfigEntry{"k", Kind::kInteger, {"1"}, 1}));
    EXPECT_TRUE(Refused("\xEF\xBB\xBF\xEF\xBB\xBFk = 1\n", 1, "byte order mark"));
    EXPECT_TRUE(Refused("a = 1\n\xEF\xBB\xBFk = 1\n", 2, "byte order mark"));
    EXPECT_TRUE(Refused("a = 1\nk = \xEF\xBB\xBF\"x\"\n", 2, "byte order mark"));
}

TEST(ConfigFile, ANulByteInsideALineIsRefused) {
    using namespace std::string_literals;
    EXPECT_TRUE(Refused("a = 1\nk = \"x\0y\"\n"s, 2, "U+0000 at column 7 (a NUL byte)"));
    EXPECT_TRUE(Refused("a = 1\n# comment \0\n"s, 2, "NUL"));
    EXPECT_TRUE(Refused("\0"s, 1, "NUL"));
}

TEST(ConfigFile, ControlCharactersOtherThanTabAreRefusedRawOrEscaped) {
    EXPECT_EQ(only_entry("k = \"a\tb\"").values, std::vector<std::string>{"a\tb"});
    EXPECT_EQ(only_entry("k = 'a\tb'").values, std::vector<std::string>{"a\tb"});
    EXPECT_TRUE(Refused("a = 1\nk = \"\x01\"", 2, "control character U+0001"));
    EXPECT_TRUE(Refused("a = 1\nk = '\x1B[31m'", 2, "control character U+001B"));
    EXPECT_TRUE(Refused("a = 1\n# \x7F", 2, "control character U+007F"));
    EXPECT_TRUE(Refused("a = 1\nk = \"\\u0000\"", 2, "\\u0000 (NUL) is not allowed"));
    EXPECT_TRUE(Refused("a = 1\nk = \"\\u001b\"", 2, "\\u001B is a control character"));
    EXPECT_TRUE(Refused("a = 1\nk = \"\\u007F\"", 2, "\\u007F is a control character"));
}

TEST(ConfigFile, InvalidUtf8IsRefusedInsideAStringOrAnywhere) {
    EXPECT_TRUE(Refused("a = 1\nk = \"\xFF\"", 2, "invalid UTF-8 at column 6 (byte 0xFF)"));
    EXPECT_TRUE(Refused("a = 1\nk = '\xC3'", 2, "invalid UTF-8"));            // truncated
    EXPECT_TRUE(Refused("a = 1\nk = \"\x80\"", 2, "invalid UTF-8"));          // stray continuation
    EXPECT_TRUE(Refused("a = 1\nk = \"\xE2\x82\"", 2, "invalid UTF-8"));      // cut short
    EXPECT_TRUE(Refused("a = 1\n# \xF4\x90\x80\x80", 2, "invalid UTF-8"));    // above U+10FFFF
    EXPECT_TRUE(Refused("a = 1\nk = \"\xED\xA0\x80\"", 2, "invalid UTF-8"));  // a surrogate
    EXPECT_TRUE(Refused("a = 1\nk = \"\xE2\x82", 2, "invalid UTF-8"));        // at end of text
}

TEST(ConfigFile, OverlongUtf8EncodingsAreRefused) {
    EXPECT_TRUE(Refused("a = 1\nk = \"\xC0\xAF\"", 2, "invalid UTF-8"));          // '/'
    EXPECT_TRUE(Refused("a = 1\nk = \"\xC1\xBF\"", 2, "invalid UTF-8"));          // U+007F
    EXPECT_TRUE(Refused("a = 1\nk = \"\xE0\x80\xAF\"", 2, "invalid UTF-8"));      // '/'
    EXPECT_TRUE(Refused("a = 1\nk = \"\xF0\x80\x80\xAF\"", 2, "invalid UTF-8"));  // '/'
    EXPECT_TRUE(Refused("a = 1\nk = \"\xC0\x80\"", 2, "invalid UTF-8"));          // NUL
}

TEST(ConfigFile, SurrogatesAndShortFormsInUnicodeEscapesAreRefused) {
    EXPECT_TRUE(Refused("a = 1\nk = \"\\uD800\"", 2, "\\uD800 is a UTF-16 surrogate"));
    EXPECT_TRUE(Refused("a = 1\nk = \"\\udfff\"", 2, "\\uDFFF is a UTF-16 surrogate"));
    EXPECT_TRUE(Refused("a = 1\nk = \"\\uD83D\\uDE00\"", 2, "surrogate"));
    EXPECT_TRUE(Refused("a = 1\nk = \"\\u12\"", 2, "exactly four hex digits"));
    EXPECT_TRUE(Refused("a = 1\nk = \"\\u12", 2, "exactly four hex digits"));
    EXPECT_TRUE(Refused("a = 1\nk = \"\\u+123\"", 2, "exactly four hex digits"));
    EXPECT_TRUE(Refused("a = 1\nk = \"\\uGHIJ\"", 2, "exactly four hex digits"));
    EXPECT_EQ(only_entry(R"(k = "\uD7FF\uE000\uFFFF")").values,
              std::vector<std::string>{"\xED\x9F\xBF\xEE\x80\x80\xEF\xBF\xBF"});
}

TEST(ConfigFile, AFileOfExactlyTheSizeBoundIsParsedAndOneByteMoreIsRefused) {
    const std::string at_bound = filler(kMaxConfigFileBytes - 6) + "k = 1\n";
    ASSERT_EQ(at_bound.size(), kMaxConfigFileBytes);
    auto parsed = parse(at_bound);
    ASSERT_TRUE(parsed.ok()) << parsed.status().message();
    EXPECT_EQ(parsed->size(), 1u);

    auto over = parse(at_bound + "\n");
    ASSERT_FALSE(over.ok());
    EXPECT_EQ(over.status().message(),
              "test.toml: the file is 65537 bytes; a config file may be at most 65536 bytes");
    EXPECT_FALSE(parse("\xEF\xBB\xBF" + filler(kMaxConfigFileBytes - 3 + 1)).ok())
        << "the byte order mark counts towards the bound";
}

TEST(ConfigFile, ALineOfExactlyTheLengthBoundIsParsedAndOneByteMoreIsRefused) {
    const std::string value(kMaxConfigLineBytes - 6, 'v');  // k = '...'
    EXPECT_EQ(only_entry("k = '" + value + "'").values, std::vector<std::string>{value});
    EXPECT_EQ(only_entry("k = '" + value + "'\r\n").values, std::vector<std::string>{value})
        << "the line ending does not count";
    EXPECT_TRUE(Refused("a = 1\nk = '" + value + "x'\n", 2,
                        "the line is 4097 bytes long; lines may be at most 4096 bytes"));
    EXPECT_TRUE(Refused("a = 1\n#" + std::string(kMaxConfigLineBytes, 'x'), 2, "4097 bytes"));
}

TEST(ConfigFile, TheEntryBoundIsAcceptedAndOneMoreIsRefusedOnItsLine) {
    std::string text;
    for (size_t i = 0; i < kMaxConfigEntries; ++i) text += "k" + std::to_string(i) + " = 1\n";
    auto parsed = parse(text);
    ASSERT_TRUE(parsed.ok()) << parsed.status().message();
    EXPECT_EQ(parsed->size(), kMaxConfigEntries);
    EXPECT_TRUE(Refused(text + "# fine\nlast = 1\n", 258, "more than 256 entries"));
}

TEST(ConfigFile, TheArrayBoundIsAcceptedAndOneMoreElementIsRefused) {
    EXPECT_EQ(only_entry(array_of(kMaxConfigArrayElements)).values.size(), kMaxConfigArrayElements);
    EXPECT_TRUE(
        Refused(array_of(kMaxConfigArrayElements + 1), 1, "the array has more than 64 elements"));
}

TEST(ConfigFile, KindsHaveNamesForMessages) {
    EXPECT_EQ(config_kind_name(Kind::kString), "string");
    EXPECT_EQ(config_kind_name(Kind::kInteger), "integer");
    EXPECT_EQ(config_kind_name(Kind::kBoolean), "boolean");
    EXPECT_EQ(config_kind_name(Kind::kArray), "array");
}

void write_file(const std::filesystem::path& path, const std::string& content) {
    std::ofstream out(path, std::ios::binary);
    out << content;
}

TEST(ConfigFileRead, ReadsAndParsesAFile) {
    yuzu::testing::TempDir dir;
    write_file(dir / "server.toml", "listen = \"127.0.0.1:9090\"\r\nmcp-read-only = true\n");
    auto parsed = read_config_file((dir / "server.toml").string());
    ASSERT_TRUE(parsed.ok()) << parsed.status().message();
    ASSERT_EQ(parsed->size(), 2u);
    EXPECT_EQ((*parsed)[1], (ConfigEntry{"mcp-read-only", Kind::kBoolean, {"true"}, 2}));
}

TEST(ConfigFileRead, ParseErrorsNameThePathAndLine) {
    yuzu::testing::TempDir dir;
    const std::string path = (dir / "server.toml").string();
    write_file(path, "a = 1\n[server]\n");
    auto parsed = read_config_file(path);
    ASSERT_FALSE(parsed.ok());
    EXPECT_EQ(parsed.status().message().rfind(path + ":2: tables", 0), 0u)
        << parsed.status().message();
}

TEST(ConfigFileRead, AMissingFileIsRefused) {
    yuzu::testing::TempDir dir;
    const std::string path = (dir / "absent.toml").string();
    auto parsed = read_config_file(path);
    ASSERT_FALSE(parsed.ok());
    EXPECT_EQ(parsed.status().code(), StatusCode::kInvalidArgument);
    EXPECT_EQ(parsed.status().message(), path + ": no such file");
    EXPECT_FALSE(read_config_file("").ok());
}

TEST(ConfigFileRead, ADirectoryIsRefused) {
    yuzu::testing::TempDir dir;
    auto parsed = read_config_file(dir.str());
    ASSERT_FALSE(parsed.ok());
    EXPECT_EQ(parsed.status().message(), dir.str() + ": is a directory, not a config file");
}

TEST(ConfigFileRead, ADeviceIsRefusedAsNotARegularFile) {
    auto parsed = read_config_file("/dev/null");
    ASSERT_FALSE(parsed.ok());
    EXPECT_EQ(parsed.status().message(), "/dev/null: is not a regular file");
}

TEST(ConfigFileRead, AFileOverTheSizeBoundIsRefusedAndOneAtItIsRead) {
    yuzu::testing::TempDir dir;
    const std::string path = (dir / "big.toml").string();
    write_file(path, filler(kMaxConfigFileBytes + 1));
    auto over = read_config_file(path);
    ASSERT_FALSE(over.ok());
    EXPECT_EQ(over.status().message(),
              path + ": the file is 65537 bytes; a config file may be at most 65536 bytes");
    write_file(path, filler(kMaxConfigFileBytes - 6) + "k = 1\n");
    auto at_bound = read_config_file(path);
    ASSERT_TRUE(at_bound.ok()) << at_bound.status().message();
    EXPECT_EQ(at_bound->size(), 1u);
}

TEST(ConfigFileRead, AnUnreadableFileIsRefused) {
    if (::geteuid() == 0) GTEST_SKIP() << "root reads files whatever their mode";
    yuzu::testing::TempDir dir;
    const std::string path = (dir / "secret.toml").string();
    write_file(path, "k = 1\n");
    ASSERT_EQ(::chmod(path.c_str(), 0), 0);
    auto parsed = read_config_file(path);
    ASSERT_FALSE(parsed.ok());
    EXPECT_EQ(parsed.status().message(), path + ": cannot be opened: Permission denied");
}

}  // namespace
}  // namespace yuzu::app
