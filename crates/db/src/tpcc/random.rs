//! TPC-C's random data (clause 4.3.2) and non-uniform distribution
//! (clause 2.1.6): uniform integers and decimals, a-strings and
//! n-strings, "ORIGINAL" in 10 % of the data fields, zip codes, customer
//! last names from three syllables, NURand with its constant C.

use nodebench_core::rng::XorShift64;

/// The ten syllables of a customer's last name (clause 4.3.2.3).
pub const SYLLABLES: [&str; 10] = [
    "BAR", "OUGHT", "ABLE", "PRI", "PRES", "ESE", "ANTI", "CALLY", "ATION", "EING",
];

/// The last name of number `n` (0..=999): its three digits' syllables
/// (371 is PRICALLYOUGHT).
pub fn last_name(n: u64) -> String {
    let n = n % 1000;
    let mut s = String::with_capacity(15);
    for d in [n / 100, n / 10 % 10, n % 10] {
        s.push_str(SYLLABLES[d as usize]);
    }
    s
}

/// NURand's A for C_LAST (clause 2.1.6).
pub const A_C_LAST: u64 = 255;
/// NURand's A for C_ID.
pub const A_C_ID: u64 = 1023;
/// NURand's A for OL_I_ID.
pub const A_OL_I_ID: u64 = 8191;

/// The run-time constants C of NURand (clause 2.1.6): one each for
/// C_LAST, C_ID and OL_I_ID, drawn once per run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Constants {
    /// C for C_LAST (0..=255).
    pub c_last: u64,
    /// C for C_ID (0..=1023).
    pub c_id: u64,
    /// C for OL_I_ID (0..=8191).
    pub ol_i_id: u64,
}

impl Constants {
    /// Uniform constants (the load's).
    pub fn draw(rng: &mut Rng) -> Constants {
        Constants {
            c_last: rng.int(0, A_C_LAST),
            c_id: rng.int(0, A_C_ID),
            ol_i_id: rng.int(0, A_OL_I_ID),
        }
    }

    /// The run's constants against the load's C_LAST (clause 2.1.6.1):
    /// |C_run - C_load| in 65..=119, not 96 nor 112; C_ID and OL_I_ID
    /// uniform.
    pub fn for_run(rng: &mut Rng, load_c_last: u64) -> Constants {
        let mut c = Constants::draw(rng);
        while !run_delta_ok(c.c_last, load_c_last) {
            c.c_last = rng.int(0, A_C_LAST);
        }
        c
    }
}

/// Whether a run's C_LAST may follow the load's (clause 2.1.6.1).
pub fn run_delta_ok(run: u64, load: u64) -> bool {
    let d = run.abs_diff(load);
    (65..=119).contains(&d) && d != 96 && d != 112
}

/// The generator of one loader or terminal.
#[derive(Debug, Clone)]
pub struct Rng(XorShift64);

/// a-string characters (clause 4.3.2.2: at least 26 lower and 26 upper
/// case letters and 10 digits).
const ALNUM: &[u8] = b"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";

impl Rng {
    /// A generator seeded with `seed`.
    pub fn new(seed: u64) -> Rng {
        Rng(XorShift64::new(nodebench_core::rng::splitmix64(seed)))
    }

    /// A uniform integer in `lo..=hi`.
    pub fn int(&mut self, lo: u64, hi: u64) -> u64 {
        lo + self.0.below(hi - lo + 1)
    }

    /// A uniform decimal in `lo..=hi` with `places` decimal places (as
    /// the spec draws prices, taxes, discounts).
    pub fn decimal(&mut self, lo: f64, hi: f64, places: i32) -> f64 {
        let scale = 10f64.powi(places);
        let (l, h) = ((lo * scale).round() as u64, (hi * scale).round() as u64);
        self.int(l, h) as f64 / scale
    }

    /// NURand(A, x, y) with constant `c` (clause 2.1.6).
    pub fn nurand(&mut self, a: u64, c: u64, x: u64, y: u64) -> u64 {
        (((self.int(0, a) | self.int(x, y)) + c) % (y - x + 1)) + x
    }

    /// A random a-string of `lo..=hi` characters.
    pub fn astring(&mut self, lo: u64, hi: u64) -> String {
        let n = self.int(lo, hi);
        (0..n)
            .map(|_| ALNUM[self.0.below(ALNUM.len() as u64) as usize] as char)
            .collect()
    }

    /// A random n-string (digits) of `lo..=hi` characters.
    pub fn nstring(&mut self, lo: u64, hi: u64) -> String {
        let n = self.int(lo, hi);
        (0..n)
            .map(|_| (b'0' + self.0.below(10) as u8) as char)
            .collect()
    }

    /// A zip code: 4 random digits and "11111" (clause 4.3.2.7).
    pub fn zip(&mut self) -> String {
        let mut z = self.nstring(4, 4);
        z.push_str("11111");
        z
    }

    /// I_DATA or S_DATA: an a-string of 26..=50 characters, "ORIGINAL"
    /// at a random place in 10 % of them (clause 4.3.3.1).
    pub fn data(&mut self) -> String {
        let mut s = self.astring(26, 50);
        if self.int(1, 10) == 1 {
            let at = self.int(0, s.len() as u64 - 8) as usize;
            s.replace_range(at..at + 8, "ORIGINAL");
        }
        s
    }

    /// A shuffle of `v` (the initial orders' customer permutation).
    pub fn shuffle<T>(&mut self, v: &mut [T]) {
        self.0.shuffle(v);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn last_names_are_the_specs_syllables() {
        // Clause 4.3.2.3's example.
        assert_eq!(last_name(371), "PRICALLYOUGHT");
        assert_eq!(last_name(0), "BARBARBAR");
        assert_eq!(last_name(999), "EINGEINGEING");
        assert_eq!(last_name(40), "BARPRESBAR");
    }

    #[test]
    fn nurand_stays_in_range_and_is_skewed() {
        let mut r = Rng::new(7);
        let mut hits = vec![0u32; 1000];
        for _ in 0..200_000 {
            let v = r.nurand(A_C_LAST, 123, 0, 999);
            assert!(v <= 999);
            hits[v as usize] += 1;
        }
        // Non-uniform: the most frequent name is drawn far more often
        // than a uniform 200 times.
        assert!(*hits.iter().max().unwrap() > 600, "{:?}", hits.iter().max());
        let mut r = Rng::new(8);
        for _ in 0..10_000 {
            let v = r.nurand(A_C_ID, 5, 1, 3000);
            assert!((1..=3000).contains(&v));
            let v = r.nurand(A_OL_I_ID, 77, 1, 100_000);
            assert!((1..=100_000).contains(&v));
        }
    }

    #[test]
    fn run_constants_keep_the_specs_distance_from_the_loads() {
        // Clause 2.1.6.1: 65..=119 apart, never 96 or 112.
        assert!(run_delta_ok(100, 200) && run_delta_ok(200, 100));
        assert!(!run_delta_ok(100, 196) && !run_delta_ok(0, 112));
        assert!(!run_delta_ok(10, 74) && !run_delta_ok(0, 120));
        let mut r = Rng::new(3);
        for load in [0, 17, 130, 255] {
            let c = Constants::for_run(&mut r, load);
            assert!(run_delta_ok(c.c_last, load), "{load} {c:?}");
            assert!(c.c_last <= A_C_LAST && c.c_id <= A_C_ID && c.ol_i_id <= A_OL_I_ID);
        }
    }

    #[test]
    fn strings_have_the_specs_lengths_and_characters() {
        let mut r = Rng::new(1);
        let mut original = 0;
        for _ in 0..5000 {
            let d = r.data();
            assert!((26..=50).contains(&d.len()));
            original += d.contains("ORIGINAL") as u32;
            let z = r.zip();
            assert!(z.len() == 9 && z.ends_with("11111") && z.bytes().all(|b| b.is_ascii_digit()));
            let a = r.astring(8, 16);
            assert!((8..=16).contains(&a.len()) && a.bytes().all(|b| b.is_ascii_alphanumeric()));
        }
        // 10 % of 5000, within a wide margin.
        assert!((350..=650).contains(&original), "{original}");
        let x = r.decimal(0.0, 0.2, 4);
        assert!((0.0..=0.2).contains(&x));
    }
}
