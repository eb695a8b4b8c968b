#include "weave/column/types.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <stdexcept>
#include <string>

namespace weave::column {
namespace {

TEST(column_type, parses_every_type_and_names_it_back) {
  EXPECT_EQ(column_type::parse("integer"), column_type::integer());
  EXPECT_EQ(column_type::parse(" INT "), column_type::integer());
  EXPECT_EQ(column_type::parse("BIGINT"), column_type::bigint());
  EXPECT_EQ(column_type::parse("decimal(12, 2)"), column_type::decimal(12, 2));
  EXPECT_EQ(column_type::parse("VARCHAR(20)"), column_type::varchar(20));
  for (const char* name : {"INTEGER", "BIGINT", "DECIMAL(12,2)", "VARCHAR(20)"}) {
    EXPECT_EQ(column_type::parse(name).name(), name);
  }
}

TEST(column_type, rejects_bad_types) {
  for (const char* bad : {"", "FLOAT", "DECIMAL", "DECIMAL(19,2)", "DECIMAL(4,5)", "DECIMAL(x,1)",
                          "VARCHAR", "VARCHAR(0)", "VARCHAR(256)", "VARCHAR(12", "INTEGER(4)"}) {
    EXPECT_THROW(column_type::parse(bad), std::invalid_argument) << bad;
  }
}

TEST(column_type, types_built_as_aggregates_are_checked) {
  EXPECT_NO_THROW(validate(column_type::decimal(18, 18)));
  EXPECT_NO_THROW(validate(column_type::varchar(255)));
  EXPECT_NO_THROW(validate(column_type::bigint()));
  for (const column_type bad : {column_type{type_kind::decimal, 40, 30, 0}, column_type{type_kind::decimal, 0, 0, 0},
                                column_type{type_kind::decimal, 4, 5, 0}, column_type{type_kind::varchar, 0, 0, 0},
                                column_type{type_kind::varchar, 0, 0, 256}, column_type{static_cast<type_kind>(9)}}) {
    EXPECT_THROW(validate(bad), std::invalid_argument) << static_cast<int>(bad.kind) << " " << bad.precision;
  }
  EXPECT_EQ(pow10(18), std::int64_t{1000000000000000000});
  EXPECT_THROW(pow10(19), std::invalid_argument);
  // A value no DECIMAL holds still formats, without overflow.
  EXPECT_EQ(format_value(value(decimal{5, 30})), "5e-30");
}

TEST(values, parse_and_format_round_trip) {
  const auto dec = column_type::decimal(7, 2);
  EXPECT_EQ(parse_value(dec, "12.3"), value(decimal{1230, 2}));
  EXPECT_EQ(parse_value(dec, "-0.05"), value(decimal{-5, 2}));
  EXPECT_EQ(parse_value(dec, "00012"), value(decimal{1200, 2}));
  EXPECT_EQ(format_value(parse_value(dec, "-12.3")), "-12.30");
  EXPECT_EQ(format_value(parse_value(dec, "99999.99")), "99999.99");
  EXPECT_EQ(parse_value(column_type::integer(), " -7 "), value(std::int32_t{-7}));
  EXPECT_EQ(parse_value(column_type::bigint(), "8000000000"), value(std::int64_t{8000000000}));
  EXPECT_EQ(parse_value(column_type::varchar(5), "ab c"), value(std::string("ab c")));
  EXPECT_EQ(format_value(value(std::int64_t{-3})), "-3");
}

TEST(values, reject_what_the_type_cannot_hold) {
  const auto dec = column_type::decimal(5, 2);
  for (const char* bad : {"1000.00", "1.234", "1.2.3", "abc", "", "-", ".", "1e5"}) {
    EXPECT_THROW(parse_value(dec, bad), std::invalid_argument) << bad;
  }
  EXPECT_THROW(parse_value(column_type::integer(), "3000000000"), std::invalid_argument);
  EXPECT_THROW(parse_value(column_type::integer(), "12x"), std::invalid_argument);
  EXPECT_THROW(parse_value(column_type::varchar(3), "abcd"), std::invalid_argument);
}

}  // namespace
}  // namespace weave::column
