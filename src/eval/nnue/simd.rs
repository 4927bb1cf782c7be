//! The network's vector kernels: accumulator row updates and the output
//! layer's dot product, each in a portable form and, on x86-64 processors
//! that have it, in AVX2 chosen at run time (twice the lanes of the SSE2
//! baseline that every x86-64 build may assume). Every form gives the same
//! integers: only the speed differs.

use super::{HIDDEN, QA};

/// Whether this processor runs the AVX2 forms (the answer is cached by std;
/// it is a compile-time `true` in a build for AVX2 processors). Only x86-64
/// has them: other builds use the portable forms.
#[cfg(target_arch = "x86_64")]
#[inline(always)]
fn avx2() -> bool {
    std::is_x86_feature_detected!("avx2")
}

/// Runs `$body` (a call of an `#[inline(always)]` kernel) compiled for AVX2
/// when the processor has it, else compiled for the build's baseline.
macro_rules! dispatch {
    ($body:expr) => {{
        #[cfg(target_arch = "x86_64")]
        {
            #[target_feature(enable = "avx2")]
            fn with_avx2<R>(f: impl FnOnce() -> R) -> R {
                f()
            }
            if avx2() {
                // SAFETY: the processor has AVX2 (checked just above).
                return unsafe { with_avx2(|| $body) };
            }
        }
        $body
    }};
}

/// `dst = src + a − s` (a quiet move).
#[inline]
pub fn add_sub(dst: &mut [i16; HIDDEN], src: &[i16; HIDDEN], a: &[i16; HIDDEN], s: &[i16; HIDDEN]) {
    dispatch!(add_sub_kernel(dst, src, a, s))
}

#[inline(always)]
fn add_sub_kernel(
    dst: &mut [i16; HIDDEN],
    src: &[i16; HIDDEN],
    a: &[i16; HIDDEN],
    s: &[i16; HIDDEN],
) {
    for i in 0..HIDDEN {
        dst[i] = src[i].wrapping_add(a[i]).wrapping_sub(s[i]);
    }
}

/// `dst = src + a − s1 − s2` (a capture).
#[inline]
pub fn add_sub2(
    dst: &mut [i16; HIDDEN],
    src: &[i16; HIDDEN],
    a: &[i16; HIDDEN],
    s1: &[i16; HIDDEN],
    s2: &[i16; HIDDEN],
) {
    dispatch!(add_sub2_kernel(dst, src, a, s1, s2))
}

#[inline(always)]
fn add_sub2_kernel(
    dst: &mut [i16; HIDDEN],
    src: &[i16; HIDDEN],
    a: &[i16; HIDDEN],
    s1: &[i16; HIDDEN],
    s2: &[i16; HIDDEN],
) {
    for i in 0..HIDDEN {
        dst[i] = src[i]
            .wrapping_add(a[i])
            .wrapping_sub(s1[i])
            .wrapping_sub(s2[i]);
    }
}

/// `dst += row`.
#[inline]
pub fn add_row(dst: &mut [i16; HIDDEN], row: &[i16; HIDDEN]) {
    dispatch!(add_row_kernel(dst, row))
}

#[inline(always)]
fn add_row_kernel(dst: &mut [i16; HIDDEN], row: &[i16; HIDDEN]) {
    for i in 0..HIDDEN {
        dst[i] = dst[i].wrapping_add(row[i]);
    }
}

/// `dst -= row`.
#[inline]
pub fn sub_row(dst: &mut [i16; HIDDEN], row: &[i16; HIDDEN]) {
    dispatch!(sub_row_kernel(dst, row))
}

#[inline(always)]
fn sub_row_kernel(dst: &mut [i16; HIDDEN], row: &[i16; HIDDEN]) {
    for i in 0..HIDDEN {
        dst[i] = dst[i].wrapping_sub(row[i]);
    }
}

/// Σ clamp(x, 0, QA)² · w, exactly (weights within ±507: the load check).
#[inline]
pub fn screlu_dot(x: &[i16; HIDDEN], w: &[i16; HIDDEN]) -> i64 {
    #[cfg(target_arch = "x86_64")]
    {
        if avx2() {
            // SAFETY: the processor has AVX2 (checked just above).
            return unsafe { screlu_dot_avx2(x, w) };
        }
        screlu_dot_sse2(x, w)
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        screlu_dot_scalar(x, w)
    }
}

/// The plain form of [`screlu_dot`]: a term is at most 255² · 507, so
/// partial sums of 16 terms fit an `i32`.
#[cfg_attr(target_arch = "x86_64", allow(dead_code))]
pub(super) fn screlu_dot_scalar(x: &[i16; HIDDEN], w: &[i16; HIDDEN]) -> i64 {
    let mut total = 0i64;
    for (xs, ws) in x.chunks_exact(16).zip(w.chunks_exact(16)) {
        let mut part = 0i32;
        for (&a, &b) in xs.iter().zip(ws) {
            let c = i32::from(a).clamp(0, QA);
            part += c * i32::from(b) * c;
        }
        total += i64::from(part);
    }
    total
}

/// [`screlu_dot`] in SSE2 (every x86-64 processor has it), still exact.
/// SSE2 multiplies 16-bit lanes, and c · w (up to 255 · 507) does not fit
/// one, so each weight is split as w = 128 · h + l with 0 ≤ l < 128 and
/// −4 ≤ h ≤ 3: c · l and c · h fit 16 bits, and `pmaddwd` multiplies each
/// by c again into 32-bit pair sums (at most 2 · 255 · 32385 each, and a
/// lane adds HIDDEN / 8 of them: below 2³¹ up to 1,024 neurons).
/// Σ c²w = Σ c·(c·l) + 128 · Σ c·(c·h).
#[cfg(target_arch = "x86_64")]
#[inline]
pub(super) fn screlu_dot_sse2(x: &[i16; HIDDEN], w: &[i16; HIDDEN]) -> i64 {
    use std::arch::x86_64::*;
    const { assert!(HIDDEN.is_multiple_of(8) && HIDDEN <= 1024) };
    // SAFETY: SSE2 is part of the x86-64 baseline; every load reads 8
    // lanes inside arrays of HIDDEN (a multiple of 8) and is unaligned.
    unsafe {
        let zero = _mm_setzero_si128();
        let qa = _mm_set1_epi16(QA as i16);
        let low_mask = _mm_set1_epi16(127);
        let (mut low, mut high) = (zero, zero);
        for i in (0..HIDDEN).step_by(8) {
            let v = _mm_loadu_si128(x.as_ptr().add(i) as *const __m128i);
            let c = _mm_min_epi16(_mm_max_epi16(v, zero), qa);
            let wv = _mm_loadu_si128(w.as_ptr().add(i) as *const __m128i);
            let l = _mm_and_si128(wv, low_mask);
            let h = _mm_srai_epi16(wv, 7);
            low = _mm_add_epi32(low, _mm_madd_epi16(c, _mm_mullo_epi16(c, l)));
            high = _mm_add_epi32(high, _mm_madd_epi16(c, _mm_mullo_epi16(c, h)));
        }
        let mut lanes = [0i32; 8];
        _mm_storeu_si128(lanes.as_mut_ptr() as *mut __m128i, low);
        _mm_storeu_si128(lanes.as_mut_ptr().add(4) as *mut __m128i, high);
        let sum = |l: &[i32]| l.iter().map(|&v| i64::from(v)).sum::<i64>();
        sum(&lanes[..4]) + 128 * sum(&lanes[4..])
    }
}

/// [`screlu_dot_sse2`] with 16 lanes (AVX2): the same split of the
/// weights, each 32-bit lane adding HIDDEN / 16 pair sums.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
pub(super) fn screlu_dot_avx2(x: &[i16; HIDDEN], w: &[i16; HIDDEN]) -> i64 {
    use std::arch::x86_64::*;
    const { assert!(HIDDEN.is_multiple_of(16) && HIDDEN <= 1024) };
    // SAFETY: every load reads 16 lanes inside arrays of HIDDEN (a
    // multiple of 16) and is unaligned; the caller has checked AVX2.
    unsafe {
        let zero = _mm256_setzero_si256();
        let qa = _mm256_set1_epi16(QA as i16);
        let low_mask = _mm256_set1_epi16(127);
        let (mut low, mut high) = (zero, zero);
        for i in (0..HIDDEN).step_by(16) {
            let v = _mm256_loadu_si256(x.as_ptr().add(i) as *const __m256i);
            let c = _mm256_min_epi16(_mm256_max_epi16(v, zero), qa);
            let wv = _mm256_loadu_si256(w.as_ptr().add(i) as *const __m256i);
            let l = _mm256_and_si256(wv, low_mask);
            let h = _mm256_srai_epi16(wv, 7);
            low = _mm256_add_epi32(low, _mm256_madd_epi16(c, _mm256_mullo_epi16(c, l)));
            high = _mm256_add_epi32(high, _mm256_madd_epi16(c, _mm256_mullo_epi16(c, h)));
        }
        let mut lanes = [0i32; 16];
        _mm256_storeu_si256(lanes.as_mut_ptr() as *mut __m256i, low);
        _mm256_storeu_si256(lanes.as_mut_ptr().add(8) as *mut __m256i, high);
        let sum = |l: &[i32]| l.iter().map(|&v| i64::from(v)).sum::<i64>();
        sum(&lanes[..8]) + 128 * sum(&lanes[8..])
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::eval::nnue::{QB, WEIGHT_CLIP};
    use rand::{RngExt, SeedableRng, rngs::StdRng};

    #[test]
    fn every_form_of_screlu_dot_is_exact_at_the_extremes_and_on_random_rows() {
        let limit = (WEIGHT_CLIP * QB as f32).ceil() as i16;
        let mut rng = StdRng::seed_from_u64(7);
        let mut cases = vec![
            ([QA as i16; HIDDEN], [limit; HIDDEN]),
            ([QA as i16; HIDDEN], [-limit; HIDDEN]),
            ([i16::MAX; HIDDEN], [limit; HIDDEN]),
            ([i16::MIN; HIDDEN], [-limit; HIDDEN]),
        ];
        for _ in 0..2000 {
            let x = std::array::from_fn(|_| rng.random_range(-400..=400));
            let w = std::array::from_fn(|_| rng.random_range(-limit..=limit));
            cases.push((x, w));
        }
        for (x, w) in &cases {
            let exact: i64 = x
                .iter()
                .zip(w)
                .map(|(&a, &b)| i64::from(a.clamp(0, QA as i16)).pow(2) * i64::from(b))
                .sum();
            assert_eq!(screlu_dot(x, w), exact);
            assert_eq!(screlu_dot_scalar(x, w), exact);
            #[cfg(target_arch = "x86_64")]
            {
                assert_eq!(screlu_dot_sse2(x, w), exact);
                if avx2() {
                    // SAFETY: the processor has AVX2.
                    assert_eq!(unsafe { screlu_dot_avx2(x, w) }, exact);
                }
            }
        }
    }

    #[test]
    fn row_updates_wrap_like_plain_integer_arithmetic() {
        let mut rng = StdRng::seed_from_u64(11);
        let r: Vec<[i16; HIDDEN]> = (0..5)
            .map(|_| std::array::from_fn(|_| rng.random()))
            .collect();
        let plain = |f: &dyn Fn(usize) -> i16| -> [i16; HIDDEN] { std::array::from_fn(f) };
        let mut dst = [0; HIDDEN];
        add_sub(&mut dst, &r[0], &r[1], &r[2]);
        assert_eq!(
            dst,
            plain(&|i| r[0][i].wrapping_add(r[1][i]).wrapping_sub(r[2][i]))
        );
        add_sub2(&mut dst, &r[0], &r[1], &r[2], &r[3]);
        assert_eq!(
            dst,
            plain(&|i| r[0][i]
                .wrapping_add(r[1][i])
                .wrapping_sub(r[2][i])
                .wrapping_sub(r[3][i]))
        );
        let mut acc = r[4];
        add_row(&mut acc, &r[0]);
        sub_row(&mut acc, &r[1]);
        assert_eq!(
            acc,
            plain(&|i| r[4][i].wrapping_add(r[0][i]).wrapping_sub(r[1][i]))
        );
    }
}
