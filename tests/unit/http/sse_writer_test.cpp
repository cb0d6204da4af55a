// SseWriter: the id/event/retry/data framing, payload line breaks (LF, CR,
// CRLF) becoming separate data lines so a payload cannot end a frame or
// inject a field, refused event names, the per-frame byte cap, comments.
#include "yuzu/http/sse_writer.hpp"

#include <gtest/gtest.h>

#include <string>
#include <utility>
#include <vector>

#include "yuzu/common/status.hpp"

namespace yuzu::http {
namespace {

constexpr size_t kBigCap = size_t{1} << 20;

std::string frame_ok(const SseEvent& event, size_t cap = kBigCap) {
    const SseWriter writer(cap);
    auto text = writer.frame(event);
    EXPECT_TRUE(text.ok()) << text.status().to_string();
    return text.ok() ? *text : std::string();
}

SseEvent data_only(std::string data) {
    SseEvent event;
    event.data = std::move(data);
    return event;
}

// The frame's lines without their LF terminators (the last, blank, line
// ending the frame included).
std::vector<std::string> lines_of(const std::string& frame) {
    std::vector<std::string> out;
    size_t start = 0;
    while (start < frame.size()) {
        const size_t lf = frame.find('\n', start);
        if (lf == std::string::npos) {
            out.push_back(frame.substr(start));
            break;
        }
        out.push_back(frame.substr(start, lf - start));
        start = lf + 1;
    }
    return out;
}

TEST(SseWriter, FramesEveryFieldInOrder) {
    SseEvent event;
    event.id = 7;
    event.event = "notice";
    event.retry_ms = 3000;
    event.data = "hello";
    EXPECT_EQ(frame_ok(event), "id: 7\nevent: notice\nretry: 3000\ndata: hello\n\n");
}

TEST(SseWriter, OmitsAbsentFields) {
    EXPECT_EQ(frame_ok(data_only("x")), "data: x\n\n");
    SseEvent with_id = data_only("{}");
    with_id.id = 1;
    EXPECT_EQ(frame_ok(with_id), "id: 1\ndata: {}\n\n");
    SseEvent with_retry = data_only("");
    with_retry.retry_ms = 0;
    EXPECT_EQ(frame_ok(with_retry), "retry: 0\ndata: \n\n");
}

TEST(SseWriter, EmptyPayloadIsOneEmptyDataLine) {
    EXPECT_EQ(frame_ok(data_only("")), "data: \n\n");
}

TEST(SseWriter, LfCrAndCrlfEachStartANewDataLine) {
    EXPECT_EQ(frame_ok(data_only("a\nb")), "data: a\ndata: b\n\n");
    EXPECT_EQ(frame_ok(data_only("a\rb")), "data: a\ndata: b\n\n");
    // CRLF is one break, not two.
    EXPECT_EQ(frame_ok(data_only("a\r\nb")), "data: a\ndata: b\n\n");
    EXPECT_EQ(frame_ok(data_only("a\r\nb\nc\rd")), "data: a\ndata: b\ndata: c\ndata: d\n\n");
}

TEST(SseWriter, ConsecutiveAndTrailingBreaksKeepEmptyLines) {
    EXPECT_EQ(frame_ok(data_only("a\n\nb")), "data: a\ndata: \ndata: b\n\n");
    // CR then CRLF: two breaks.
    EXPECT_EQ(frame_ok(data_only("a\r\r\nb")), "data: a\ndata: \ndata: b\n\n");
    EXPECT_EQ(frame_ok(data_only("a\n")), "data: a\ndata: \n\n");
    EXPECT_EQ(frame_ok(data_only("a\r\n")), "data: a\ndata: \n\n");
    EXPECT_EQ(frame_ok(data_only("\n")), "data: \ndata: \n\n");
}

TEST(SseWriter, PayloadCannotInjectAFieldOrEndTheFrame) {
    SseEvent event = data_only("a\nid: 9");
    event.id = 3;
    const std::string text = frame_ok(event);
    EXPECT_EQ(text, "id: 3\ndata: a\ndata: id: 9\n\n");
    const std::vector<std::string> expected = {"id: 3", "data: a", "data: id: 9", ""};
    EXPECT_EQ(lines_of(text), expected);

    // A blank line in the payload (which would end the frame) and field
    // names after CR or CRLF all stay inside data lines.
    const std::string hostile = "x\r\n\r\nevent: evil\rretry: 1\n\nid: 99";
    const std::vector<std::string> lines = lines_of(frame_ok(data_only(hostile)));
    ASSERT_GE(lines.size(), 2u);
    EXPECT_EQ(lines.back(), "");
    for (size_t i = 0; i + 1 < lines.size(); ++i) {
        EXPECT_EQ(lines[i].rfind("data: ", 0), 0u) << "line " << i << ": " << lines[i];
    }
    const std::vector<std::string> hostile_expected = {
        "data: x", "data: ", "data: event: evil", "data: retry: 1", "data: ", "data: id: 99", ""};
    EXPECT_EQ(lines, hostile_expected);
    // No CR survives anywhere in the frame.
    EXPECT_EQ(frame_ok(data_only(hostile)).find('\r'), std::string::npos);
}

TEST(SseWriter, EventNameWithALineBreakIsRefused) {
    const SseWriter writer(kBigCap);
    for (const char* name : {"a\nb", "a\rb", "a\r\nb", "\n", "tail\r"}) {
        SseEvent event = data_only("x");
        event.event = name;
        auto text = writer.frame(event);
        ASSERT_FALSE(text.ok()) << "event name accepted";
        EXPECT_EQ(text.status().code(), StatusCode::kInvalidArgument);
    }
}

TEST(SseWriter, FrameOverTheCapIsRefusedAndExactlyAtTheCapIsAccepted) {
    // "data: hello\n\n" is 13 bytes.
    const SseEvent event = data_only("hello");
    ASSERT_EQ(frame_ok(event).size(), 13u);

    const SseWriter at_cap(13);
    EXPECT_EQ(at_cap.max_frame_bytes(), 13u);
    auto fits = at_cap.frame(event);
    ASSERT_TRUE(fits.ok()) << fits.status().to_string();
    EXPECT_EQ(*fits, "data: hello\n\n");

    const SseWriter below_cap(12);
    auto over = below_cap.frame(event);
    ASSERT_FALSE(over.ok());
    EXPECT_EQ(over.status().code(), StatusCode::kResourceExhausted);
}

TEST(SseWriter, CapCountsTheWholeFrameIncludingFieldsAndExtraDataPrefixes) {
    SseEvent event = data_only("a\nb");  // "id: 1\n" + "data: a\n" + "data: b\n" + "\n"
    event.id = 1;
    ASSERT_EQ(frame_ok(event).size(), 23u);
    EXPECT_TRUE(SseWriter(23).frame(event).ok());
    auto over = SseWriter(22).frame(event);
    ASSERT_FALSE(over.ok());
    EXPECT_EQ(over.status().code(), StatusCode::kResourceExhausted);
}

TEST(SseWriter, CommentReplacesLineBreaksWithSpaces) {
    EXPECT_EQ(SseWriter::comment("keep-alive"), ": keep-alive\n\n");
    EXPECT_EQ(SseWriter::comment(""), ": \n\n");
    EXPECT_EQ(SseWriter::comment("a\nb\rc\r\nd"), ": a b c  d\n\n");
    const std::string text = SseWriter::comment("x\n\ndata: injected");
    EXPECT_EQ(text, ": x  data: injected\n\n");
    EXPECT_EQ(text.find('\r'), std::string::npos);
    EXPECT_EQ(text.find('\n'), text.size() - 2);
}

}  // namespace
}  // namespace yuzu::http
