#![no_main]
libfuzzer_sys::fuzz_target!(|data: &[u8]| lore_fuzz::frontmatter(data));
